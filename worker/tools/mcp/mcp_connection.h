#ifndef TASKBOARD_WORKER_TOOLS_MCP_MCP_CONNECTION_H_
#define TASKBOARD_WORKER_TOOLS_MCP_MCP_CONNECTION_H_

// One live connection to an MCP server, whatever its transport: a stdio
// server process (mcp_stdio_connection.h) or a Streamable HTTP session
// (mcp_http_connection.h). McpClient (mcp_client.h) runs the handshake,
// the listing, the calls and the restarts over this interface, so both
// transports share them. A connection never restarts itself: once it has
// ended, McpClient replaces it.
//
// Thread-safe: requests run concurrently.

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "worker/base/cancel_token.h"
#include "worker/tools/mcp/mcp_inbox.h"

namespace taskboard::worker {

class McpConnection {
 public:
  virtual ~McpConnection() = default;
  McpConnection(const McpConnection&) = delete;
  McpConnection& operator=(const McpConnection&) = delete;

  // Sends a request and waits for its answer until `deadline` or until
  // `cancel` (optional) fires; then, unless `cancellable` is false (MCP
  // forbids cancelling `initialize`), tells the server with
  // notifications/cancelled. The result on success. Errors, each naming the
  // server and `label` (default: the method): DEADLINE_EXCEEDED, CANCELLED,
  // UNAVAILABLE when the connection ended or cannot be written to,
  // RESOURCE_EXHAUSTED when the answer was too long, INVALID_ARGUMENT /
  // UNIMPLEMENTED / UNKNOWN for a JSON-RPC error answer (invalid params /
  // method not found / others) and for what a transport refuses.
  virtual absl::StatusOr<Json> Request(absl::string_view method, const Json& params,
                                       absl::Time deadline, const CancelToken* cancel,
                                       bool cancellable = true, absl::string_view label = {}) = 0;

  // Sends a notification. UNAVAILABLE when it cannot be delivered.
  virtual absl::Status Notify(absl::string_view method, const Json& params) = 0;

  // Ends the connection without waiting; requests in flight fail.
  virtual void Kill() = 0;

  // Whether the connection still works.
  bool alive() const { return !inbox_.ended(); }
  // How it ended ("exited with code 1: <stderr tail>"); empty while alive.
  std::string ending() const { return inbox_.ending(); }
  // Messages dropped so far (malformed, unmatched ids, ...), for tests and
  // logs.
  int64_t dropped() const { return inbox_.dropped(); }

 protected:
  McpConnection(McpPeerOptions peer, std::function<void(const std::string&)> reply)
      : inbox_(std::move(peer), std::move(reply)) {}

  McpInbox inbox_;
};

// Marks the error of a request the server refused unhandled because it no
// longer knows the session (Streamable HTTP's 404), so McpClient may send it
// again on a new connection.
absl::Status McpSessionLost(absl::Status status);
bool IsMcpSessionLost(const absl::Status& status);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_MCP_MCP_CONNECTION_H_
