#include "worker/tools/mcp/mcp_connection.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/log/log.h"
#include "common/utf8.h"
#include "worker/base/subprocess.h"

namespace taskboard::worker {
namespace {

// How long a write to the server's stdin may block: a server that stops
// reading fails the request instead of holding the caller forever.
constexpr int kStdinWriteTimeoutSeconds = 5;
// How much of an over-long message is kept to find the id it answers.
constexpr size_t kOversizedKeep = 256;
// How often a waiting request looks at its cancel token.
constexpr absl::Duration kRequestCancelPoll = absl::Milliseconds(50);

std::string ErrnoText(int error) {
  return std::error_code(error, std::generic_category()).message();
}

// The id after the last `"id":` in `text`, if it is an integer: how an
// over-long answer is matched to its request without parsing it. The
// TypeScript SDK writes the id last, other SDKs first; both ends are kept.
std::optional<int64_t> FindIntegerId(absl::string_view text) {
  const size_t at = text.rfind("\"id\":");
  if (at == absl::string_view::npos) return std::nullopt;
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(text.substr(at + 5));
  size_t end = 0;
  while (end < rest.size() && (absl::ascii_isdigit(rest[end]) || (end == 0 && rest[0] == '-'))) {
    ++end;
  }
  int64_t id = 0;
  if (!absl::SimpleAtoi(rest.substr(0, end), &id)) return std::nullopt;
  return id;
}

// A JSON-RPC error answer as a status, keeping the server's words.
absl::Status AnswerError(const std::string& prefix, const mcp::JsonRpcError& error) {
  const std::string message =
      absl::StrCat(prefix, "refused it (", mcp::DescribeJsonRpcError(error), ")");
  switch (error.code) {
    case mcp::kInvalidParams:
      return absl::InvalidArgumentError(message);
    case mcp::kMethodNotFound:
      return absl::UnimplementedError(message);
    default:
      return absl::UnknownError(message);
  }
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

absl::StatusOr<std::unique_ptr<McpConnection>> McpConnection::Start(McpConnectionOptions options) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot start MCP server '", options.server_name, "': ", ErrnoText(errno)));
  }
  timeval timeout{kStdinWriteTimeoutSeconds, 0};
  setsockopt(fds[0], SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  std::unique_ptr<McpConnection> connection(new McpConnection(std::move(options)));
  connection->stdin_fd_ = fds[0];
  connection->thread_ = std::thread([raw = connection.get(), child = fds[1]] { raw->Run(child); });
  return connection;
}

McpConnection::McpConnection(McpConnectionOptions options) : options_(std::move(options)) {}

McpConnection::~McpConnection() {
  Kill();
  if (thread_.joinable()) thread_.join();
  close(stdin_fd_);
}

void McpConnection::Kill() {
  // MCP's stdio shutdown: close the server's stdin, then SIGTERM, then
  // SIGKILL (the reaper does the last two).
  shutdown(stdin_fd_, SHUT_WR);
  stop_.Cancel("the worker stopped the MCP server");
}

void McpConnection::Run(int child_stdin) {
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
    log::Warn("an MCP server ended").With("server", options_.server_name).With("how", ending);
  }
  absl::MutexLock lock(&mu_);
  ended_ = true;
  ending_ = ending;
  for (auto& [id, call] : pending_) {
    if (call->done) continue;
    call->answer = absl::UnavailableError(
        absl::StrCat(Prefix(call->method), "the server ", ending,
                     ran.ok() ? " before answering; the next call restarts it" : ""));
    call->done = true;
  }
}

std::string McpConnection::Prefix(absl::string_view method) const {
  return absl::StrCat("MCP server '", options_.server_name, "', ", method, ": ");
}

absl::Status McpConnection::Send(const std::string& text) {
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

absl::StatusOr<Json> McpConnection::Request(absl::string_view method, const Json& params,
                                            absl::Time deadline, const CancelToken* cancel,
                                            bool cancellable, absl::string_view label) {
  auto call = std::make_shared<Pending>();
  call->method = std::string(label.empty() ? method : label);
  int64_t id;
  {
    absl::MutexLock lock(&mu_);
    if (ended_) {
      return absl::UnavailableError(absl::StrCat(Prefix(call->method), "the server ", ending_));
    }
    id = next_id_++;
    pending_[id] = call;
  }
  if (absl::Status sent = Send(mcp::EncodeJsonRpcRequest(Json(id), method, params)); !sent.ok()) {
    absl::MutexLock lock(&mu_);
    pending_.erase(id);
    return absl::UnavailableError(absl::StrCat(Prefix(call->method), sent.message()));
  }
  std::string stopped;  // why we gave up waiting, if we did
  absl::Status gave_up;
  {
    absl::MutexLock lock(&mu_);
    while (!call->done) {
      const absl::Time now = absl::Now();
      if (cancel != nullptr && cancel->cancelled()) {
        const std::string reason = cancel->reason();
        stopped = absl::StrCat("cancelled: ", reason.empty() ? "no reason given" : reason);
        gave_up = absl::CancelledError(absl::StrCat(Prefix(call->method), stopped));
        break;
      }
      if (now >= deadline) {
        stopped = "timed out";
        gave_up = absl::DeadlineExceededError(
            absl::StrCat(Prefix(call->method), "no answer within the timeout"));
        break;
      }
      mu_.AwaitWithDeadline(
          absl::Condition(&call->done),
          cancel != nullptr ? std::min(deadline, now + kRequestCancelPoll) : deadline);
    }
    pending_.erase(id);
  }
  if (call->done) return call->answer;
  if (cancellable) {
    // Best effort: a server that cannot take it is failing anyway.
    (void)Notify("notifications/cancelled", Json{{"requestId", id}, {"reason", stopped}});
  }
  return gave_up;
}

absl::Status McpConnection::Notify(absl::string_view method, const Json& params) {
  return Send(mcp::EncodeJsonRpcNotification(method, params));
}

bool McpConnection::alive() const {
  absl::MutexLock lock(&mu_);
  return !ended_;
}

std::string McpConnection::ending() const {
  absl::MutexLock lock(&mu_);
  return ending_;
}

int64_t McpConnection::dropped() const {
  absl::MutexLock lock(&mu_);
  return dropped_;
}

void McpConnection::OnStdout(absl::string_view chunk) {
  while (!chunk.empty()) {
    const size_t newline = chunk.find('\n');
    const absl::string_view part = chunk.substr(0, newline);
    if (!oversized_ && line_.size() + part.size() > options_.max_message_bytes) {
      oversized_ = true;
      oversized_head_ = line_.substr(0, kOversizedKeep);
      if (oversized_head_.size() < kOversizedKeep) {
        const absl::string_view more = part.substr(0, kOversizedKeep - oversized_head_.size());
        oversized_head_.append(more.data(), more.size());
      }
      oversized_tail_.clear();
      std::string().swap(line_);
    }
    if (oversized_) {
      oversized_tail_.append(part.data(), part.size());
      if (oversized_tail_.size() > kOversizedKeep) {
        oversized_tail_.erase(0, oversized_tail_.size() - kOversizedKeep);
      }
    } else {
      line_.append(part.data(), part.size());
    }
    if (newline == absl::string_view::npos) return;
    chunk.remove_prefix(newline + 1);
    if (oversized_) {
      OnOversized();
      oversized_ = false;
    } else {
      OnLine(line_);
    }
    line_.clear();
  }
}

void McpConnection::OnOversized() {
  std::optional<int64_t> id = FindIntegerId(oversized_tail_);
  if (!id.has_value()) id = FindIntegerId(oversized_head_);
  absl::MutexLock lock(&mu_);
  auto it = id.has_value() ? pending_.find(*id) : pending_.end();
  if (it == pending_.end() || it->second->done) {
    ++dropped_;
    log::Warn("an MCP server sent an over-long message matching no request; dropped")
        .With("server", options_.server_name)
        .With("limit_bytes", options_.max_message_bytes);
    return;
  }
  it->second->answer = absl::ResourceExhaustedError(
      absl::StrCat(Prefix(it->second->method), "the answer is longer than ",
                   options_.max_message_bytes, " bytes, the limit"));
  it->second->done = true;
}

void McpConnection::OnLine(absl::string_view line) {
  line = absl::StripAsciiWhitespace(line);
  if (line.empty()) return;
  absl::StatusOr<mcp::JsonRpcMessage> message =
      mcp::ParseJsonRpcMessage(line, options_.max_message_bytes);
  auto drop = [this](absl::string_view why) {
    absl::MutexLock lock(&mu_);
    // The first few, then one in a thousand: a flood must not flood the log.
    if (++dropped_ <= 5 || dropped_ % 1000 == 0) {
      log::Warn("dropped a message from an MCP server")
          .With("server", options_.server_name)
          .With("why", why)
          .With("dropped", dropped_);
    }
  };
  if (!message.ok()) return drop(message.status().message());
  switch (message->kind) {
    case mcp::JsonRpcMessage::Kind::kNotification:
      if (options_.on_notification) options_.on_notification(*message);
      return;
    case mcp::JsonRpcMessage::Kind::kRequest:
      return OnServerRequest(*message);
    case mcp::JsonRpcMessage::Kind::kResponse:
      break;
  }
  if (!message->id.is_number_integer()) return drop("an answer to an id the worker never sent");
  const int64_t id = message->id.get<int64_t>();
  absl::MutexLock lock(&mu_);
  auto it = pending_.find(id);
  if (it == pending_.end() || it->second->done) {
    ++dropped_;
    return;
  }
  Pending& call = *it->second;
  if (message->error.has_value()) {
    call.answer = AnswerError(Prefix(call.method), *message->error);
  } else {
    call.answer = std::move(message->result);
  }
  call.done = true;
}

void McpConnection::OnServerRequest(const mcp::JsonRpcMessage& request) {
  // The worker declares no client capabilities (no roots, sampling or
  // elicitation), so only ping has an answer.
  const std::string reply =
      request.method == "ping"
          ? mcp::EncodeJsonRpcResult(request.id, Json::object())
          : mcp::EncodeJsonRpcError(
                request.id, {mcp::kMethodNotFound,
                             absl::StrCat("the Taskboard worker does not offer '", request.method,
                                          "' to MCP servers"),
                             Json()});
  (void)Send(reply);
}

}  // namespace taskboard::worker
