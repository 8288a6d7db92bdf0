#ifndef TASKBOARD_WORKER_TOOLS_MCP_MCP_HTTP_CONNECTION_H_
#define TASKBOARD_WORKER_TOOLS_MCP_MCP_HTTP_CONNECTION_H_

// One session with a Streamable HTTP MCP server (MCP 2025-06-18, "Streamable
// HTTP"; docs/mcp.md#streamable-http-servers). Each message is a POST of its
// JSON to the server's URL with `Accept: application/json,
// text/event-stream`; a request is answered by a JSON body or by a stream
// of server-sent events (mcp_event_stream.h) that may carry notifications
// and requests of the server before the answer. Everything received goes
// through an McpInbox (mcp_inbox.h), as a stdio server's stdout does.
//
// The `Mcp-Session-Id` the server gives with its answer to `initialize` is
// sent with every later message, and so is `MCP-Protocol-Version` once
// agreed. After notifications/initialized the connection listens on a GET
// stream for what the server sends unasked (notifications/tools/list_changed),
// reconnecting with backoff, unless the server answers the GET 405.
//
// The connection ends (alive() turns false, McpClient starts a new one) when
// the server cannot be reached or the connection breaks, and when it no
// longer knows the session: a 404 (or a 400, as some servers answer an
// unknown session) to a message carrying the session id. A request refused
// so was not handled, so its error is marked IsMcpSessionLost and McpClient
// sends it again on a new session.
//
// Bounded: a JSON answer by max_message_bytes, each event likewise, a POST's
// whole stream by kMaxStreamMessages messages' worth, captured headers by
// kMaxCapturedHeaderBytes; redirects are not followed; every exchange by the
// request's deadline. Header values are never logged.
//
// Thread-safe: each request is its own HTTP exchange on the calling thread.

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/backoff.h"
#include "worker/base/http_post.h"
#include "worker/tools/mcp/mcp_connection.h"

namespace taskboard::worker {

struct McpHttpOptions {
  McpPeerOptions peer;
  std::string url;
  // "Name: value" lines sent with every message (mcp.headers, read from
  // the environment).
  std::vector<std::string> headers;
  absl::Duration connect_timeout = absl::Seconds(10);
  // Bounds a notification, an answer to the server's request, and the
  // session's DELETE, none of which has a caller's deadline.
  absl::Duration send_timeout = absl::Seconds(5);
  // Whether to open the GET stream after notifications/initialized.
  bool listen = true;
  BackoffOptions listen_backoff = {absl::Milliseconds(500), absl::Seconds(30)};
};

class McpHttpConnection : public McpConnection {
 public:
  explicit McpHttpConnection(McpHttpOptions options);
  // Stops the GET stream and ends the session with a DELETE (best effort,
  // bounded by send_timeout) unless the server is known to be gone.
  ~McpHttpConnection() override;

  absl::StatusOr<Json> Request(absl::string_view method, const Json& params, absl::Time deadline,
                               const CancelToken* cancel, bool cancellable = true,
                               absl::string_view label = {}) override;
  absl::Status Notify(absl::string_view method, const Json& params) override;
  void Kill() override;

 private:
  // A request to the server's URL with the session's headers.
  HttpPostRequest Exchange(std::string method, absl::Duration timeout) const;
  // What a failed or answer-less exchange for request `name` means.
  absl::Status Failure(const absl::StatusOr<HttpResponse>& response, absl::string_view name,
                       bool had_session);
  // Sends one message that expects no answer (a notification, an answer to
  // the server). UNAVAILABLE naming `what` on failure.
  absl::Status Send(const std::string& body, absl::string_view what);
  // Keeps the session id and protocol version of `initialize`'s answer.
  // FAILED_PRECONDITION for a session id that cannot be echoed.
  absl::Status RememberSession(const HttpResponse& response, const Json& init_result);
  void Listen();

  const McpHttpOptions options_;
  // Fired by Kill: ends every exchange and the GET stream.
  CancelToken killed_;

  mutable absl::Mutex mu_;
  std::string session_id_ ABSL_GUARDED_BY(mu_);
  std::string protocol_version_ ABSL_GUARDED_BY(mu_);
  // Whether the server was found gone (no DELETE is sent then).
  bool gone_ ABSL_GUARDED_BY(mu_) = false;
  std::thread listener_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_MCP_MCP_HTTP_CONNECTION_H_
