#ifndef TASKBOARD_COMMON_MCP_SERVER_SESSION_H_
#define TASKBOARD_COMMON_MCP_SERVER_SESSION_H_

// The server side of one MCP session (docs/mcp.md#taskboard-as-an-mcp-server):
// JSON-RPC messages in, answers out, whatever carries them (`taskboard mcp`
// over stdio, the scheduler's POST /mcp). It speaks the lifecycle
// (initialize, notifications/initialized, ping) and the tools capability
// (tools/list, tools/call) over a ToolTable; every other method is
// "method not found".
//
// Input is bounded: a message longer than `max_message_bytes` or nested
// deeper than the JSON depth limit is refused with a JSON-RPC error before a
// tool sees it. Not thread-safe: one session per connection (stdio) or per
// request (HTTP).

#include <cstddef>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/mcp/tool_table.h"

namespace taskboard::mcp {

// The newest MCP revision the server speaks, answered to a client that asks
// for one the server does not know (the client then decides whether to go on).
inline constexpr char kLatestProtocolVersion[] = "2025-06-18";

// Whether the server speaks revision `version` ("2025-03-26").
bool IsSupportedProtocolVersion(absl::string_view version);

struct ServerOptions {
  std::string name = "taskboard";
  std::string version = "0.1.0";
  // Told to the client in initialize's answer; empty: none.
  std::string instructions;
  size_t max_message_bytes = 4 << 20;
  // Over stdio a session is the connection, so a request before initialize
  // is refused. POST /mcp is stateless (no Mcp-Session-Id): each request
  // stands alone, so it sets this false.
  bool require_initialize = true;
};

class ServerSession {
 public:
  // `tools` must outlive the session.
  ServerSession(ServerOptions options, ToolTable& tools);

  // Handles one message. Returns the answer's JSON text for a request, a
  // JSON-RPC error (with a null id when the id could not be read) for a
  // message that is not one, and nothing for a notification or a response.
  std::optional<std::string> Handle(absl::string_view text);

  // The revision initialize agreed on; empty before.
  const std::string& protocol_version() const { return protocol_version_; }

 private:
  absl::StatusOr<Json> Dispatch(const std::string& method, const Json& params);
  absl::StatusOr<Json> Initialize(const Json& params);
  absl::StatusOr<Json> CallTool(const Json& params);

  const ServerOptions options_;
  ToolTable& tools_;
  std::string protocol_version_;
};

}  // namespace taskboard::mcp

#endif  // TASKBOARD_COMMON_MCP_SERVER_SESSION_H_
