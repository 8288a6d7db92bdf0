#ifndef TASKBOARD_WORKER_TOOLS_MCP_MCP_CONNECTION_H_
#define TASKBOARD_WORKER_TOOLS_MCP_MCP_CONNECTION_H_

// One running stdio MCP server process and the JSON-RPC traffic with it
// (docs/mcp.md#limits-and-errors): newline-delimited messages on its stdin
// and stdout, requests matched to responses by id.
//
// The process runs under taskboard-reaper like a command tool
// (worker/base/subprocess.h), on a thread of its own that also reads its
// stdout. Whatever the server sends that is not a well-formed message, an
// answer to an id nobody waits for, or a notification nobody asked for is
// dropped (and counted), so a confused or hostile server fails only the
// requests it does not answer. A message longer than max_message_bytes fails
// the request it answers. When the process ends, every waiting request fails
// naming the server and how it ended. A connection never restarts its
// process: McpClient replaces a dead connection.
//
// Thread-safe.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "common/mcp/json_rpc.h"
#include "worker/base/cancel_token.h"

namespace taskboard::worker {

struct McpConnectionOptions {
  // The server's name, for errors ("MCP server 'github' ...").
  std::string server_name;
  std::vector<std::string> argv;
  // The whole environment, as NAME=value strings.
  std::vector<std::string> env;
  std::string cwd;
  // Longest message accepted from the server.
  size_t max_message_bytes = (4 << 20) + (64 << 10);
  absl::Duration kill_grace = absl::Seconds(2);
  // Called on the connection's thread for each notification from the
  // server; must return quickly.
  std::function<void(const mcp::JsonRpcMessage&)> on_notification;
  // The taskboard-reaper program; empty: FindReaper().
  std::string reaper;
};

class McpConnection {
 public:
  // Starts the process. Errors: INTERNAL when no socket can be made; a
  // program that cannot run shows up as the connection ending at once.
  static absl::StatusOr<std::unique_ptr<McpConnection>> Start(McpConnectionOptions options);
  // Closes the server's stdin, stops it (SIGTERM, then SIGKILL after
  // kill_grace) and waits for its process tree to end.
  ~McpConnection();
  McpConnection(const McpConnection&) = delete;
  McpConnection& operator=(const McpConnection&) = delete;

  // Sends a request and waits for its answer until `deadline` or until
  // `cancel` (optional) fires; then, unless `cancellable` is false (MCP
  // forbids cancelling `initialize`), tells the server with
  // notifications/cancelled. The result on success. Errors, each naming the
  // server and the method: DEADLINE_EXCEEDED, CANCELLED, UNAVAILABLE when
  // the process ended or cannot be written to, RESOURCE_EXHAUSTED when the
  // answer was too long, INVALID_ARGUMENT / UNIMPLEMENTED / UNKNOWN for a
  // JSON-RPC error answer (invalid params / method not found / others).
  // `label` names the request in errors (default: the method).
  absl::StatusOr<Json> Request(absl::string_view method, const Json& params, absl::Time deadline,
                               const CancelToken* cancel, bool cancellable = true,
                               absl::string_view label = {});

  // Sends a notification. UNAVAILABLE when it cannot be written.
  absl::Status Notify(absl::string_view method, const Json& params);

  // Stops the process (as the destructor does) without waiting; requests
  // in flight fail as it ends.
  void Kill();

  // Whether the process still runs.
  bool alive() const;
  // How the process ended ("exited with code 1: <stderr tail>"); empty
  // while it runs.
  std::string ending() const;
  // Messages dropped so far (malformed, unmatched ids, server requests and
  // notifications count once each), for tests and logs.
  int64_t dropped() const;

 private:
  struct Pending {
    std::string method;
    bool done = false;
    absl::StatusOr<Json> answer = Json();
  };

  explicit McpConnection(McpConnectionOptions options);
  void Run(int child_stdin);
  void OnStdout(absl::string_view chunk);
  void OnLine(absl::string_view line);
  void OnOversized();
  void OnServerRequest(const mcp::JsonRpcMessage& request);
  absl::Status Send(const std::string& text);
  std::string Prefix(absl::string_view method) const;

  const McpConnectionOptions options_;
  // Ours of the socket the server reads as stdin; written under write_mu_.
  int stdin_fd_ = -1;
  absl::Mutex write_mu_;
  // Fired to stop the process.
  CancelToken stop_;
  std::thread thread_;

  // Touched only by the connection's thread.
  std::string line_;
  bool oversized_ = false;
  std::string oversized_head_;
  std::string oversized_tail_;

  mutable absl::Mutex mu_;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  absl::flat_hash_map<int64_t, std::shared_ptr<Pending>> pending_ ABSL_GUARDED_BY(mu_);
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  std::string ending_ ABSL_GUARDED_BY(mu_);
  int64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_MCP_MCP_CONNECTION_H_
