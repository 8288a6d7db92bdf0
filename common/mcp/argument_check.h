#ifndef TASKBOARD_COMMON_MCP_ARGUMENT_CHECK_H_
#define TASKBOARD_COMMON_MCP_ARGUMENT_CHECK_H_

// Checks a tool call's arguments against the tool's own input schema, so the
// schema a client is shown is the one enforced, with no second copy of the
// rules in each tool (docs/mcp.md#taskboard-as-an-mcp-server).
//
// It knows the small part of JSON Schema the taskboard tools use: an object
// with `properties`, `required` and `additionalProperties` (false, or a
// schema every other value must match), and per value `type` (string,
// integer, number, boolean, object, array), `enum`, `minimum`, `maximum`,
// `maxLength`. Other keywords are ignored.

#include "absl/status/status.h"
#include "common/json.h"

namespace taskboard::mcp {

// INVALID_ARGUMENT naming the argument and what it should be.
absl::Status CheckArguments(const Json& schema, const Json& arguments);

}  // namespace taskboard::mcp

#endif  // TASKBOARD_COMMON_MCP_ARGUMENT_CHECK_H_
