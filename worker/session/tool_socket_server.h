#ifndef TASKBOARD_WORKER_SESSION_TOOL_SOCKET_SERVER_H_
#define TASKBOARD_WORKER_SESSION_TOOL_SOCKET_SERVER_H_

// How command agents reach the worker's tools: `taskboard tool NAME JSON`
// (tools/cli/tool_command.h) inside an agent connects to this Unix socket,
// whose path the agent finds in TASKBOARD_TOOL_SOCKET, and names its task with
// the TASKBOARD_TASK_TOKEN it was given. Each call goes through the
// ToolCaller, so it is cached and observed exactly like an LLM agent's.
//
// Protocol: per connection, any number of request lines, each answered by
// one response line (UTF-8 JSON, '\n'-terminated):
//   -> {"token": "...", "tool": "read_file", "args": {"path": "a.txt"}}
//   <- {"ok": true, "result": <JSON>, "cached": false, "cache_age_ms": 0,
//       "source_task": null | {"run_id": "...", "task_id": "..."}}
//   <- {"ok": false, "error": "file 'a.txt' does not exist ..."}
//
// The socket lives in a fresh private directory (mode 0700) under $TMPDIR,
// taskboard-worker.<pid>.XXXXXX, so only the worker's user can connect; the
// token ties a call to one task's lease and stops working when the task ends
// (Revoke). Start removes the directories of the user's dead workers.
//
// Threads: one accept thread, and one thread per connection (at most
// max_connections at once; more are answered with an error and closed).

#include <cstddef>
#include <filesystem>
#include <list>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/unix_socket.h"
#include "worker/base/cancel_token.h"
#include "worker/session/tool_caller.h"

namespace taskboard::worker {

struct ToolSocketOptions {
  // Where to create the socket's private directory; empty: $TMPDIR, or /tmp
  // when that is unset or too long for a socket path.
  std::filesystem::path parent_dir;
  size_t max_connections = 64;
  // How long a connected client may take to send a request line.
  absl::Duration request_timeout = absl::Seconds(60);
  size_t max_request_bytes = 16 << 20;
};

class ToolSocketServer {
 public:
  // Creates the directory and socket and starts accepting. INTERNAL /
  // INVALID_ARGUMENT naming the path when the socket cannot be served.
  static absl::StatusOr<std::unique_ptr<ToolSocketServer>> Start(ToolCaller& caller,
                                                                 ToolSocketOptions options = {});
  // Stops accepting, ends open connections, joins every thread, removes the
  // socket and its directory. Every grant must be revoked first.
  ~ToolSocketServer();
  ToolSocketServer(const ToolSocketServer&) = delete;
  ToolSocketServer& operator=(const ToolSocketServer&) = delete;

  // The socket's path (TASKBOARD_TOOL_SOCKET).
  const std::string& path() const { return path_; }

  // Lets whoever holds the returned token call tools as `task` until
  // Revoke. The grant's calls are cancelled by Revoke, not by task.cancel
  // (which is ignored): the token outlives nothing it refers to.
  std::string Grant(ToolTask task);

  // Ends a grant: later requests with its token are refused, calls in
  // flight are cancelled and waited for. Unknown tokens are ignored.
  void Revoke(const std::string& token);

  // One request line to its response line (no '\n'): the protocol, without
  // the socket.
  std::string Handle(absl::string_view request_line);

 private:
  struct GrantState;
  struct Connection {
    std::thread thread;
    // -1 once the thread is done with it.
    int fd = -1;
  };

  ToolSocketServer(ToolCaller& caller, ToolSocketOptions options, std::filesystem::path dir,
                   UniqueFd listener, UniqueFd wake);
  void AcceptLoop();
  void Serve(Connection* connection, UniqueFd fd);
  void JoinFinishedConnections();

  ToolCaller& caller_;
  const ToolSocketOptions options_;
  const std::filesystem::path dir_;
  const std::string path_;
  const UniqueFd listener_;
  // An eventfd that wakes the accept thread to stop.
  const UniqueFd wake_;
  std::thread accept_thread_;

  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  absl::flat_hash_map<std::string, std::shared_ptr<GrantState>> grants_ ABSL_GUARDED_BY(mu_);
  std::list<Connection> connections_ ABSL_GUARDED_BY(mu_);
  size_t open_connections_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_SESSION_TOOL_SOCKET_SERVER_H_
