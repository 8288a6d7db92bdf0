#include "worker/tools/mcp/mcp_http_connection.h"

#include <poll.h>

#include <algorithm>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/log/log.h"
#include "common/utf8.h"
#include "worker/tools/mcp/mcp_event_stream.h"

namespace taskboard::worker {
namespace {

constexpr char kSessionHeader[] = "mcp-session-id";
// A POST's stream may carry notifications and server requests before its
// answer: this many messages' worth of bytes, then it is cut off.
constexpr size_t kMaxStreamMessages = 4;
// The longest protocol version echoed back.
constexpr size_t kMaxVersionBytes = 32;
// A GET stream that lasted this long was healthy: its backoff starts over.
constexpr absl::Duration kHealthyStream = absl::Seconds(30);

// Session ids and protocol versions are echoed in headers: visible ASCII
// only (MCP 2025-06-18, session management), so a server cannot inject a
// header line.
bool IsVisibleAscii(absl::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x21 && c <= 0x7e; });
}

std::string Snippet(absl::string_view body) {
  body = absl::StripAsciiWhitespace(body);
  if (body.size() > 200) return absl::StrCat(ToValidUtf8(body.substr(0, 200)), "...");
  return ToValidUtf8(body);
}

bool IsJson(const HttpResponse& response) {
  return absl::StrContains(absl::AsciiStrToLower(response.content_type), "application/json");
}

// Waits `delay` or until `token` fires, whichever is first.
void SleepUnlessCancelled(const CancelToken& token, absl::Duration delay) {
  const absl::Time until = absl::Now() + delay;
  while (!token.cancelled() && absl::Now() < until) {
    pollfd fd{token.fd(), POLLIN, 0};
    const int millis =
        static_cast<int>(std::max<int64_t>(1, absl::ToInt64Milliseconds(until - absl::Now())));
    if (fd.fd < 0) {
      absl::SleepFor(absl::Milliseconds(std::min(millis, 50)));
    } else {
      poll(&fd, 1, millis);
    }
  }
}

}  // namespace

McpHttpConnection::McpHttpConnection(McpHttpOptions options)
    : McpConnection(options.peer,
                    [this](const std::string& reply) { (void)Send(reply, "an answer to it"); }),
      options_(std::move(options)) {}

McpHttpConnection::~McpHttpConnection() {
  bool delete_session;
  {
    absl::MutexLock lock(&mu_);
    delete_session = !session_id_.empty() && !gone_;
  }
  killed_.Cancel("the worker closed the MCP session");
  inbox_.End("was disconnected by the worker", "", /*fail_waiting=*/false);
  if (listener_.joinable()) listener_.join();
  if (delete_session) {
    // MCP's HTTP shutdown: the client SHOULD end the session with a DELETE.
    // A server that does not allow it answers 405; either way, not waited
    // for longer than send_timeout.
    HttpPostRequest end = Exchange("DELETE", options_.send_timeout);
    end.stop = nullptr;  // killed_ has fired
    (void)HttpPost(end);
  }
}

void McpHttpConnection::Kill() {
  killed_.Cancel("the worker closed the MCP session");
  inbox_.End("was disconnected by the worker", "", /*fail_waiting=*/false);
}

HttpPostRequest McpHttpConnection::Exchange(std::string method, absl::Duration timeout) const {
  HttpPostRequest post;
  post.method = std::move(method);
  post.url = options_.url;
  post.headers = options_.headers;
  post.headers.push_back(post.method == "GET" ? "Accept: text/event-stream"
                                              : "Accept: application/json, text/event-stream");
  if (post.method == "POST") post.headers.push_back("Content-Type: application/json");
  {
    absl::MutexLock lock(&mu_);
    if (!session_id_.empty()) post.headers.push_back(absl::StrCat("Mcp-Session-Id: ", session_id_));
    if (!protocol_version_.empty()) {
      post.headers.push_back(absl::StrCat("MCP-Protocol-Version: ", protocol_version_));
    }
  }
  post.timeout = std::max(timeout, absl::Milliseconds(1));
  post.connect_timeout = std::min(options_.connect_timeout, post.timeout);
  post.stop = &killed_;
  post.capture_headers = {kSessionHeader};
  post.max_response_bytes = options_.peer.max_message_bytes;
  post.max_stream_bytes = options_.peer.max_message_bytes * kMaxStreamMessages;
  return post;
}

absl::Status McpHttpConnection::RememberSession(const HttpResponse& response,
                                                const Json& init_result) {
  absl::MutexLock lock(&mu_);
  if (auto it = response.headers.find(kSessionHeader); it != response.headers.end()) {
    if (it->second.empty() || it->second.size() > kMaxCapturedHeaderBytes ||
        !IsVisibleAscii(it->second)) {
      return absl::FailedPreconditionError(
          absl::StrCat("the server gave an Mcp-Session-Id that is not 1-", kMaxCapturedHeaderBytes,
                       " visible ASCII characters"));
    }
    session_id_ = it->second;
  }
  if (init_result.is_object()) {
    auto version = init_result.find("protocolVersion");
    if (version != init_result.end() && version->is_string() &&
        version->get_ref<const std::string&>().size() <= kMaxVersionBytes &&
        IsVisibleAscii(version->get_ref<const std::string&>())) {
      protocol_version_ = version->get<std::string>();
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Json> McpHttpConnection::Request(absl::string_view method, const Json& params,
                                                absl::Time deadline, const CancelToken* cancel,
                                                bool cancellable, absl::string_view label) {
  const std::string name(label.empty() ? method : label);
  absl::StatusOr<int64_t> id = inbox_.Open(name);
  if (!id.ok()) return id.status();
  bool had_session;
  {
    absl::MutexLock lock(&mu_);
    had_session = !session_id_.empty();
  }
  McpEventStream stream(&inbox_);
  HttpPostRequest post = Exchange("POST", deadline - absl::Now());
  post.body = mcp::EncodeJsonRpcRequest(Json(*id), method, params);
  post.cancel = cancel;
  post.on_event_stream = [&stream](absl::string_view bytes) { stream.Feed(bytes); };
  // A server may keep the stream open after the answer; it is not waited for.
  post.stream_done = [this, id = *id] { return inbox_.Answered(id); };
  absl::StatusOr<HttpResponse> response = HttpPost(post);

  if (response.ok() && !response->streamed && response->status != 404 &&
      !(response->status == 400 && had_session) && IsJson(*response)) {
    inbox_.OnMessage(response->body);
  }
  std::optional<absl::StatusOr<Json>> answer = inbox_.Close(*id);
  if (answer.has_value()) {
    if (method == "initialize" && response.ok() && answer->ok()) {
      if (absl::Status kept = RememberSession(*response, **answer); !kept.ok()) {
        return absl::FailedPreconditionError(absl::StrCat(inbox_.Prefix(name), kept.message()));
      }
    }
    return *std::move(answer);
  }
  absl::Status failed = Failure(response, name, had_session);
  if ((absl::IsDeadlineExceeded(failed) || absl::IsCancelled(failed)) && cancellable) {
    std::string why;
    failed = inbox_.GaveUp(name, cancel, &why);
    // Best effort: a server that cannot take it is failing anyway.
    (void)Notify("notifications/cancelled", Json{{"requestId", *id}, {"reason", why}});
  }
  return failed;
}

absl::Status McpHttpConnection::Failure(const absl::StatusOr<HttpResponse>& response,
                                        absl::string_view name, bool had_session) {
  const std::string prefix = inbox_.Prefix(name);
  if (killed_.cancelled()) {
    return absl::UnavailableError(absl::StrCat(prefix, "the worker closed the session"));
  }
  if (!response.ok()) {
    const absl::Status& status = response.status();
    if (absl::IsResourceExhausted(status)) {
      return absl::ResourceExhaustedError(
          absl::StrCat(prefix, "the answer is longer than the limit (", status.message(), ")"));
    }
    if (absl::IsDeadlineExceeded(status) || absl::IsCancelled(status)) {
      return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
    }
    // The server cannot be reached or the connection broke: whatever
    // session it had may be gone with it, so the next call starts anew.
    {
      absl::MutexLock lock(&mu_);
      gone_ = true;
    }
    inbox_.End(absl::StrCat("could not be reached (", status.message(), ")"), "",
               /*fail_waiting=*/false);
    return absl::UnavailableError(
        absl::StrCat(prefix, "the connection to the server failed before it answered (",
                     status.message(), "); the next call starts a new session"));
  }
  const int code = response->status;
  if (code == 404 || (code == 400 && had_session)) {
    inbox_.End(absl::StrCat("no longer knows the session (HTTP ", code, ")"), "",
               /*fail_waiting=*/false);
    return McpSessionLost(
        absl::UnavailableError(absl::StrCat(prefix, "the server no longer knows the session (HTTP ",
                                            code, ": ", Snippet(response->body), ")")));
  }
  if (code >= 300 && code < 400) {
    return absl::FailedPreconditionError(
        absl::StrCat(prefix, "the server redirects (HTTP ", code,
                     "); the worker does not follow redirects: set mcp.url to the final address"));
  }
  if (code == 401 || code == 403) {
    return absl::PermissionDeniedError(
        absl::StrCat(prefix, "the server refused the worker (HTTP ", code,
                     "); check the environment variables named by mcp.headers in the server file"));
  }
  if (code >= 200 && code < 300) {
    if (!response->streamed && !IsJson(*response) && code != 202) {
      return absl::UnknownError(absl::StrCat(prefix, "the server answered with Content-Type '",
                                             Snippet(response->content_type),
                                             "', neither application/json nor text/event-stream"));
    }
    return absl::UnknownError(absl::StrCat(prefix, "the server answered HTTP ", code,
                                           " without a response to the request (", inbox_.dropped(),
                                           " messages dropped so far)"));
  }
  const std::string message =
      absl::StrCat(prefix, "the server answered HTTP ", code, ": ", Snippet(response->body));
  return code >= 500 ? absl::UnavailableError(message) : absl::UnknownError(message);
}

absl::Status McpHttpConnection::Send(const std::string& body, absl::string_view what) {
  HttpPostRequest post = Exchange("POST", options_.send_timeout);
  post.body = body;
  absl::StatusOr<HttpResponse> response = HttpPost(post);
  if (!response.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot send ", what, " to the server: ", response.status().message()));
  }
  if (response->status < 200 || response->status >= 300) {
    return absl::UnavailableError(absl::StrCat("the server refused ", what, " (HTTP ",
                                               response->status, ": ", Snippet(response->body),
                                               ")"));
  }
  return absl::OkStatus();
}

absl::Status McpHttpConnection::Notify(absl::string_view method, const Json& params) {
  absl::Status sent =
      Send(mcp::EncodeJsonRpcNotification(method, params), absl::StrCat("'", method, "'"));
  if (sent.ok() && method == "notifications/initialized" && options_.listen &&
      !listener_.joinable()) {
    listener_ = std::thread([this] { Listen(); });
  }
  return sent;
}

void McpHttpConnection::Listen() {
  Backoff backoff(options_.listen_backoff);
  absl::BitGen random;
  while (!killed_.cancelled() && alive()) {
    McpEventStream stream(&inbox_);
    // A stream lives as long as the session; only its events are bounded.
    HttpPostRequest get = Exchange("GET", absl::Hours(24 * 365));
    get.max_stream_bytes = 0;
    get.on_event_stream = [&stream](absl::string_view bytes) { stream.Feed(bytes); };
    const absl::Time opened = absl::Now();
    absl::StatusOr<HttpResponse> response = HttpPost(get);
    if (killed_.cancelled()) return;
    if (response.ok() && response->status == 405) return;  // the server sends nothing unasked
    if (response.ok() && response->status == 404) {
      inbox_.End("no longer knows the session (HTTP 404 on its GET stream)", "",
                 /*fail_waiting=*/false);
      return;
    }
    if (response.ok() && !response->streamed) {
      log::Warn("an MCP server refused its GET stream; tools/list_changed is not heard")
          .With("server", options_.peer.server_name)
          .With("http_status", response->status);
      return;
    }
    if (absl::Now() - opened > kHealthyStream) backoff.Reset();
    SleepUnlessCancelled(killed_, backoff.Next(random));
  }
}

}  // namespace taskboard::worker
