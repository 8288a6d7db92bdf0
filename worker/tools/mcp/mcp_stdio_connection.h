#ifndef TASKBOARD_WORKER_TOOLS_MCP_MCP_STDIO_CONNECTION_H_
#define TASKBOARD_WORKER_TOOLS_MCP_MCP_STDIO_CONNECTION_H_

// One running stdio MCP server process (docs/mcp.md#lifetimes):
// newline-delimited JSON-RPC messages on its stdin and stdout, handled by
// an McpInbox (mcp_inbox.h).
//
// The process runs under taskboard-reaper like a command tool
// (worker/base/subprocess.h), on a thread of its own that also reads its
// stdout. When the process ends, every waiting request fails naming the
// server and how it ended.
//
// Thread-safe.

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "worker/tools/mcp/mcp_connection.h"
#include "worker/tools/mcp/mcp_message_buffer.h"

namespace taskboard::worker {

struct McpStdioOptions {
  McpPeerOptions peer;
  std::vector<std::string> argv;
  // The whole environment, as NAME=value strings.
  std::vector<std::string> env;
  std::string cwd;
  absl::Duration kill_grace = absl::Seconds(2);
  // The taskboard-reaper program; empty: FindReaper().
  std::string reaper;
};

class McpStdioConnection : public McpConnection {
 public:
  // Starts the process. Errors: INTERNAL when no socket can be made; a
  // program that cannot run shows up as the connection ending at once.
  static absl::StatusOr<std::unique_ptr<McpStdioConnection>> Start(McpStdioOptions options);
  // Closes the server's stdin, stops it (SIGTERM, then SIGKILL after
  // kill_grace) and waits for its process tree to end.
  ~McpStdioConnection() override;

  absl::StatusOr<Json> Request(absl::string_view method, const Json& params, absl::Time deadline,
                               const CancelToken* cancel, bool cancellable = true,
                               absl::string_view label = {}) override;
  absl::Status Notify(absl::string_view method, const Json& params) override;
  // Stops the process (as the destructor does) without waiting.
  void Kill() override;

 private:
  explicit McpStdioConnection(McpStdioOptions options);
  void Run(int child_stdin);
  void OnStdout(absl::string_view chunk);
  absl::Status Send(const std::string& text);

  const McpStdioOptions options_;
  // Ours of the socket the server reads as stdin; written under write_mu_.
  int stdin_fd_ = -1;
  absl::Mutex write_mu_;
  // Fired to stop the process.
  CancelToken stop_;
  std::thread thread_;

  // The stdout line being read; touched only by the connection's thread.
  McpMessageBuffer line_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_MCP_MCP_STDIO_CONNECTION_H_
