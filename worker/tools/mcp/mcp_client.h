#ifndef TASKBOARD_WORKER_TOOLS_MCP_MCP_CLIENT_H_
#define TASKBOARD_WORKER_TOOLS_MCP_MCP_CLIENT_H_

// The worker's client of one MCP server (docs/mcp.md), stdio or Streamable
// HTTP (a McpConnection of either kind): it starts the server's process or
// session when a call needs it (the first listing at start-up, then after a
// death or a lost session), runs the MCP handshake (initialize with protocol version
// 2025-06-18, notifications/initialized), lists its tools following
// pagination, and calls them. A server that died is restarted by the next
// call after a backoff delay (common/backoff.h), so a crashing server
// costs its calls a fast failure instead of a restart loop.
//
//   no connection --(a call)--> starting --(initialize ok)--> ready
//        ^                          |                           |
//        +---(backoff)---- failed --+------ process ended ------+
//
// notifications/tools/list_changed makes a background thread list the tools
// again and hand them to on_tools (the tool registry); so does a failed
// first listing, retried with backoff until it succeeds.
//
// Thread-safe: calls run concurrently over one connection.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/backoff.h"
#include "common/json.h"
#include "worker/base/cancel_token.h"
#include "worker/tools/mcp/mcp_connection.h"
#include "worker/tools/mcp/mcp_server_file.h"

namespace taskboard::worker {

// The MCP protocol version the worker asks for, and those it accepts back.
inline constexpr char kMcpProtocolVersion[] = "2025-06-18";

// One tool as tools/list describes it.
struct McpToolInfo {
  std::string name;
  std::string description;
  // The tool's inputSchema (an object).
  Json input_schema;
  // Its annotations (readOnlyHint, idempotentHint, ...), or null: hints
  // only, never trusted for caching.
  Json annotations;
};

struct McpClientOptions {
  // For initialize plus one tools/list page.
  absl::Duration start_timeout = absl::Seconds(30);
  // Longest tools/call result, as JSON text.
  size_t max_result_bytes = 4 << 20;
  // Most tools a server may list (over all pages).
  int max_tools = 1000;
  int max_list_pages = 100;
  absl::Duration kill_grace = absl::Seconds(2);
  BackoffOptions restart_backoff = {absl::Milliseconds(200), absl::Seconds(30)};
  // The taskboard-reaper program; empty: FindReaper().
  std::string reaper;
};

class McpClient {
 public:
  McpClient(McpServerDefinition definition, McpClientOptions options);
  // Stop()s.
  ~McpClient();
  McpClient(const McpClient&) = delete;
  McpClient& operator=(const McpClient&) = delete;

  const McpServerDefinition& definition() const { return definition_; }
  const McpClientOptions& options() const { return options_; }

  // Lists the server's tools (all pages), starting it if needed.
  // Errors name the server: those of the start (UNAVAILABLE, NOT_FOUND for
  // a missing program, DEADLINE_EXCEEDED, FAILED_PRECONDITION for a protocol
  // version the worker does not speak), RESOURCE_EXHAUSTED when it lists
  // more than max_tools, INVALID_ARGUMENT for a malformed listing.
  absl::StatusOr<std::vector<McpToolInfo>> ListTools();

  // Calls tool `name` (the server's name for it) with `arguments`, bounded by
  // the file's timeout and `cancel`. The tools/call result object (content,
  // isError, structuredContent). Errors: those of McpConnection::Request
  // and of starting the server.
  // `meta`, when not null, goes as the request's `_meta` (the task's
  // FlowState, docs/mcp.md#flowstate).
  absl::StatusOr<Json> CallTool(const std::string& name, const Json& arguments,
                                const CancelToken* cancel, const Json* meta = nullptr);

  // Starts the background thread that relists the tools on
  // notifications/tools/list_changed, or until a listing succeeds when
  // `list_now` is set, handing each listing to `on_tools`.
  void Watch(std::function<void(std::vector<McpToolInfo>)> on_tools, bool list_now);

  // Stops the background thread and the server.
  void Stop();

 private:
  // The running connection, started (with the handshake) if there is none,
  // waiting out the restart backoff first. Errors as ListTools.
  absl::StatusOr<std::shared_ptr<McpConnection>> Connected(absl::Time deadline,
                                                           const CancelToken* cancel);
  absl::StatusOr<std::shared_ptr<McpConnection>> StartLocked(absl::Time deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(start_mu_);
  // A new connection of the file's transport, before the handshake.
  // FAILED_PRECONDITION / INVALID_ARGUMENT for a header whose environment
  // variable is missing or unusable; those of McpStdioConnection::Start.
  absl::StatusOr<std::shared_ptr<McpConnection>> Open(McpPeerOptions peer) const;
  // One request on the running connection (started if needed), sent again
  // once on a new one when the server had lost the session.
  absl::StatusOr<Json> Send(absl::string_view method, const Json& params, absl::Time deadline,
                            const CancelToken* cancel, absl::string_view label = {});
  void WatchLoop();

  const McpServerDefinition definition_;
  const McpClientOptions options_;

  // Held while a connection is checked or started: one start at a time.
  absl::Mutex start_mu_;
  std::shared_ptr<McpConnection> connection_ ABSL_GUARDED_BY(start_mu_);
  Backoff backoff_ ABSL_GUARDED_BY(start_mu_);
  absl::Time next_start_ ABSL_GUARDED_BY(start_mu_) = absl::InfinitePast();
  std::string last_failure_ ABSL_GUARDED_BY(start_mu_);

  absl::Mutex watch_mu_;
  bool relist_ ABSL_GUARDED_BY(watch_mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(watch_mu_) = false;
  std::function<void(std::vector<McpToolInfo>)> on_tools_;
  std::thread watcher_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_MCP_MCP_CLIENT_H_
