#include "worker/tools/mcp/mcp_stdio_connection.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/log/log.h"
#include "common/utf8.h"
#include "worker/base/subprocess.h"

namespace taskboard::worker {
namespace {

// How long a write to the server's stdin may block: a server that stops
// reading fails the request instead of holding the caller forever.
constexpr int kStdinWriteTimeoutSeconds = 5;

std::string ErrnoText(int error) {
  return std::error_code(error, std::generic_category()).message();
}

std::string Describe(const absl::StatusOr<SubprocessResult>& ran) {
  if (!ran.ok()) return absl::StrCat("could not start: ", ran.status().message());
  std::string how;
  switch (ran->ending) {
    case SubprocessResult::Ending::kExited:
      how = absl::StrCat("exited with code ", ran->exit_code);
      break;
    case SubprocessResult::Ending::kSignaled:
      how = absl::StrCat("was killed by ", SignalName(ran->term_signal));
      break;
    case SubprocessResult::Ending::kCancelled:
      how = "was stopped by the worker";
      break;
    default:
      how = "ended";
      break;
  }
  absl::string_view tail = absl::StripAsciiWhitespace(ran->stderr_tail);
  if (tail.size() > 300) tail = tail.substr(tail.size() - 300);
  if (!tail.empty()) absl::StrAppend(&how, " (stderr: ", ToValidUtf8(tail), ")");
  return how;
}

}  // namespace

absl::StatusOr<std::unique_ptr<McpStdioConnection>> McpStdioConnection::Start(
    McpStdioOptions options) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return absl::InternalError(absl::StrCat("cannot start MCP server '", options.peer.server_name,
                                            "': ", ErrnoText(errno)));
  }
  timeval timeout{kStdinWriteTimeoutSeconds, 0};
  setsockopt(fds[0], SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  std::unique_ptr<McpStdioConnection> connection(new McpStdioConnection(std::move(options)));
  connection->stdin_fd_ = fds[0];
  connection->thread_ = std::thread([raw = connection.get(), child = fds[1]] { raw->Run(child); });
  return connection;
}

McpStdioConnection::McpStdioConnection(McpStdioOptions options)
    : McpConnection(options.peer, [this](const std::string& reply) { (void)Send(reply); }),
      options_(std::move(options)),
      line_(&inbox_) {}

McpStdioConnection::~McpStdioConnection() {
  Kill();
  if (thread_.joinable()) thread_.join();
  close(stdin_fd_);
}

void McpStdioConnection::Kill() {
  // MCP's stdio shutdown: close the server's stdin, then SIGTERM, then
  // SIGKILL (the reaper does the last two).
  shutdown(stdin_fd_, SHUT_WR);
  stop_.Cancel("the worker stopped the MCP server");
}

void McpStdioConnection::Run(int child_stdin) {
  SubprocessOptions process;
  process.argv = options_.argv;
  process.env = options_.env;
  process.cwd = options_.cwd;
  process.stdin_fd = child_stdin;
  process.keep_stdout = false;
  process.on_stdout = [this](absl::string_view chunk) { OnStdout(chunk); };
  process.kill_grace = options_.kill_grace;
  process.cancel = &stop_;
  process.reaper = options_.reaper;
  const absl::StatusOr<SubprocessResult> ran = RunSubprocess(process);
  close(child_stdin);
  const std::string ending = Describe(ran);
  if (!stop_.cancelled()) {
    log::Warn("an MCP server ended").With("server", options_.peer.server_name).With("how", ending);
  }
  inbox_.End(ending, ran.ok() ? " before answering; the next call restarts it" : "");
}

absl::Status McpStdioConnection::Send(const std::string& text) {
  absl::MutexLock lock(&write_mu_);
  const std::string framed = absl::StrCat(text, "\n");
  size_t offset = 0;
  while (offset < framed.size()) {
    const ssize_t n = send(stdin_fd_, framed.data() + offset, framed.size() - offset, MSG_NOSIGNAL);
    if (n > 0) {
      offset += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      const int error = errno;
      return absl::UnavailableError(
          error == EAGAIN || error == EWOULDBLOCK
              ? absl::StrCat("the server did not read its stdin for ", kStdinWriteTimeoutSeconds,
                             "s")
              : absl::StrCat("cannot write to the server: ", ErrnoText(error)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Json> McpStdioConnection::Request(absl::string_view method, const Json& params,
                                                 absl::Time deadline, const CancelToken* cancel,
                                                 bool cancellable, absl::string_view label) {
  const std::string name(label.empty() ? method : label);
  absl::StatusOr<int64_t> id = inbox_.Open(name);
  if (!id.ok()) return id.status();
  if (absl::Status sent = Send(mcp::EncodeJsonRpcRequest(Json(*id), method, params)); !sent.ok()) {
    inbox_.Close(*id);
    return absl::UnavailableError(absl::StrCat(inbox_.Prefix(name), sent.message()));
  }
  std::string stopped;
  absl::StatusOr<Json> answer = inbox_.Await(*id, deadline, cancel, &stopped);
  if (!stopped.empty() && cancellable) {
    // Best effort: a server that cannot take it is failing anyway.
    (void)Notify("notifications/cancelled", Json{{"requestId", *id}, {"reason", stopped}});
  }
  return answer;
}

absl::Status McpStdioConnection::Notify(absl::string_view method, const Json& params) {
  return Send(mcp::EncodeJsonRpcNotification(method, params));
}

void McpStdioConnection::OnStdout(absl::string_view chunk) {
  while (!chunk.empty()) {
    const size_t newline = chunk.find('\n');
    line_.Append(chunk.substr(0, newline));
    if (newline == absl::string_view::npos) return;
    chunk.remove_prefix(newline + 1);
    line_.Deliver();
  }
}

}  // namespace taskboard::worker
