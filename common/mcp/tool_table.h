#ifndef TASKBOARD_COMMON_MCP_TOOL_TABLE_H_
#define TASKBOARD_COMMON_MCP_TOOL_TABLE_H_

// The tools an MCP server offers (docs/mcp.md#taskboard-as-an-mcp-server),
// as the server session (server_session.h) sees them: a list to show and a
// call by name. Kept apart from the session so the protocol is tested with a
// fake table and the taskboard tools without the protocol.

#include <string>
#include <vector>

#include "common/json.h"

namespace taskboard::mcp {

struct ToolDescription {
  std::string name;
  std::string description;
  // A JSON Schema object ("type": "object").
  Json input_schema;
};

// What a call produced. A failure of the tool (a run that is not there, a
// bad argument, a scheduler that refused) is a result with `is_error`, its
// text saying what to do, so the model calling it can correct itself; only
// protocol errors are JSON-RPC errors (MCP 2025-06-18, "Error Handling").
struct ToolResult {
  std::string text;
  // An object, or null for none.
  Json structured;
  bool is_error = false;

  static ToolResult Error(std::string text) { return {std::move(text), Json(), true}; }
};

class ToolTable {
 public:
  virtual ~ToolTable() = default;
  virtual std::vector<ToolDescription> List() const = 0;
  // Whether `name` is one of List()'s tools.
  virtual bool Has(const std::string& name) const = 0;
  // Calls tool `name` (Has(name)) with `arguments` (an object) and the
  // call's `params._meta` (an object, or null when the client sent none).
  // Blocks for as long as the tool takes; safe to call from several threads.
  virtual ToolResult Call(const std::string& name, const Json& arguments, const Json& meta) = 0;
};

}  // namespace taskboard::mcp

#endif  // TASKBOARD_COMMON_MCP_TOOL_TABLE_H_
