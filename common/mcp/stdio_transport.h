#ifndef TASKBOARD_COMMON_MCP_STDIO_TRANSPORT_H_
#define TASKBOARD_COMMON_MCP_STDIO_TRANSPORT_H_

// MCP's stdio transport for a server (`taskboard mcp`,
// docs/mcp.md#taskboard-as-an-mcp-server): one JSON-RPC message per line on
// `in`, each answer one line on `out`, flushed at once. Nothing else is
// written to `out`; logs go to standard error.
//
// A line longer than `max_line_bytes` is read to its end without being
// kept and answered with a parse error, so a hostile client costs one
// buffer, not memory without bound.

#include <cstddef>
#include <istream>
#include <ostream>

#include "common/mcp/server_session.h"

namespace taskboard::mcp {

// Serves until `in` ends. Blank lines are skipped.
void ServeLines(ServerSession& session, std::istream& in, std::ostream& out, size_t max_line_bytes);

}  // namespace taskboard::mcp

#endif  // TASKBOARD_COMMON_MCP_STDIO_TRANSPORT_H_
