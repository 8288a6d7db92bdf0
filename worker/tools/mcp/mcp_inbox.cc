#include "worker/tools/mcp/mcp_inbox.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/log/log.h"

namespace taskboard::worker {
namespace {

// How often a waiting request looks at its cancel token.
constexpr absl::Duration kRequestCancelPoll = absl::Milliseconds(50);

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

}  // namespace

McpInbox::McpInbox(McpPeerOptions options, std::function<void(const std::string&)> reply)
    : options_(std::move(options)), reply_(std::move(reply)) {}

std::string McpInbox::Prefix(absl::string_view label) const {
  return absl::StrCat("MCP server '", options_.server_name, "', ", label, ": ");
}

absl::StatusOr<int64_t> McpInbox::Open(std::string label) {
  absl::MutexLock lock(&mu_);
  if (ended_) return absl::UnavailableError(absl::StrCat(Prefix(label), "the server ", ending_));
  const int64_t id = next_id_++;
  auto call = std::make_shared<Pending>();
  call->label = std::move(label);
  pending_[id] = std::move(call);
  return id;
}

absl::Status McpInbox::GaveUp(absl::string_view label, const CancelToken* cancel,
                              std::string* why_stopped) const {
  if (cancel != nullptr && cancel->cancelled()) {
    const std::string reason = cancel->reason();
    *why_stopped = absl::StrCat("cancelled: ", reason.empty() ? "no reason given" : reason);
    return absl::CancelledError(absl::StrCat(Prefix(label), *why_stopped));
  }
  *why_stopped = "timed out";
  return absl::DeadlineExceededError(absl::StrCat(Prefix(label), "no answer within the timeout"));
}

absl::StatusOr<Json> McpInbox::Await(int64_t id, absl::Time deadline, const CancelToken* cancel,
                                     std::string* why_stopped) {
  absl::MutexLock lock(&mu_);
  auto it = pending_.find(id);
  if (it == pending_.end()) return absl::InternalError("MCP request id not registered");
  const std::shared_ptr<Pending> call = it->second;
  while (!call->done) {
    const absl::Time now = absl::Now();
    if ((cancel != nullptr && cancel->cancelled()) || now >= deadline) break;
    mu_.AwaitWithDeadline(
        absl::Condition(&call->done),
        cancel != nullptr ? std::min(deadline, now + kRequestCancelPoll) : deadline);
  }
  pending_.erase(id);
  if (call->done) return call->answer;
  return GaveUp(call->label, cancel, why_stopped);
}

std::optional<absl::StatusOr<Json>> McpInbox::Close(int64_t id) {
  absl::MutexLock lock(&mu_);
  auto it = pending_.find(id);
  if (it == pending_.end()) return std::nullopt;
  std::shared_ptr<Pending> call = std::move(it->second);
  pending_.erase(it);
  if (!call->done) return std::nullopt;
  return std::move(call->answer);
}

bool McpInbox::Answered(int64_t id) const {
  absl::MutexLock lock(&mu_);
  auto it = pending_.find(id);
  return it != pending_.end() && it->second->done;
}

void McpInbox::End(std::string how, absl::string_view hint, bool fail_waiting) {
  absl::MutexLock lock(&mu_);
  if (ended_) return;
  ended_ = true;
  ending_ = std::move(how);
  if (!fail_waiting) return;
  for (auto& [id, call] : pending_) {
    if (call->done) continue;
    call->answer =
        absl::UnavailableError(absl::StrCat(Prefix(call->label), "the server ", ending_, hint));
    call->done = true;
  }
}

bool McpInbox::ended() const {
  absl::MutexLock lock(&mu_);
  return ended_;
}

std::string McpInbox::ending() const {
  absl::MutexLock lock(&mu_);
  return ending_;
}

int64_t McpInbox::dropped() const {
  absl::MutexLock lock(&mu_);
  return dropped_;
}

void McpInbox::Drop(absl::string_view why) {
  absl::MutexLock lock(&mu_);
  // The first few, then one in a thousand: a flood must not flood the log.
  if (++dropped_ <= 5 || dropped_ % 1000 == 0) {
    log::Warn("dropped a message from an MCP server")
        .With("server", options_.server_name)
        .With("why", why)
        .With("dropped", dropped_);
  }
}

void McpInbox::OnOversized(absl::string_view head, absl::string_view tail) {
  std::optional<int64_t> id = FindIntegerId(tail);
  if (!id.has_value()) id = FindIntegerId(head);
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
      absl::StrCat(Prefix(it->second->label), "the answer is longer than ",
                   options_.max_message_bytes, " bytes, the limit"));
  it->second->done = true;
}

void McpInbox::OnMessage(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  if (text.empty()) return;
  if (text.size() > options_.max_message_bytes) {
    return OnOversized(text.substr(0, kOversizedKeep),
                       text.substr(text.size() - std::min(text.size(), kOversizedKeep)));
  }
  absl::StatusOr<mcp::JsonRpcMessage> message =
      mcp::ParseJsonRpcMessage(text, options_.max_message_bytes);
  if (!message.ok()) return Drop(message.status().message());
  switch (message->kind) {
    case mcp::JsonRpcMessage::Kind::kNotification:
      if (options_.on_notification) options_.on_notification(*message);
      return;
    case mcp::JsonRpcMessage::Kind::kRequest:
      return OnServerRequest(*message);
    case mcp::JsonRpcMessage::Kind::kResponse:
      break;
  }
  if (!message->id.is_number_integer()) return Drop("an answer to an id the worker never sent");
  const int64_t id = message->id.get<int64_t>();
  absl::MutexLock lock(&mu_);
  auto it = pending_.find(id);
  if (it == pending_.end() || it->second->done) {
    ++dropped_;
    return;
  }
  Pending& call = *it->second;
  if (message->error.has_value()) {
    call.answer = AnswerError(Prefix(call.label), *message->error);
  } else {
    call.answer = std::move(message->result);
  }
  call.done = true;
}

void McpInbox::OnServerRequest(const mcp::JsonRpcMessage& request) {
  // The worker declares no client capabilities (no roots, sampling or
  // elicitation), so only ping has an answer.
  reply_(request.method == "ping"
             ? mcp::EncodeJsonRpcResult(request.id, Json::object())
             : mcp::EncodeJsonRpcError(request.id,
                                       {mcp::kMethodNotFound,
                                        absl::StrCat("the Taskboard worker does not offer '",
                                                     request.method, "' to MCP servers"),
                                        Json()}));
}

}  // namespace taskboard::worker
