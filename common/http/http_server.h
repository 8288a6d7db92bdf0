#ifndef TASKBOARD_COMMON_HTTP_HTTP_SERVER_H_
#define TASKBOARD_COMMON_HTTP_HTTP_SERVER_H_

// The services' HTTP front door: one event-driven thread (libmicrohttpd on
// epoll) serves every connection of one listener, so a thousand idle or
// slow connections cost file descriptors and a little memory, not a thread
// each (docs/decisions.md, decision 134). Everything a client controls is
// bounded before it is read:
//
//   connections      at most `max_connections`, and `max_connections_per_address`
//                    from one address; more are closed at accept
//   request head     `max_header_bytes`, within `header_timeout` of the accept
//                    (or of the previous answer on a kept-alive connection)
//   body             the route's `max_body_bytes` whatever its framing: a
//                    declared length over it is 413 before a byte is read, a
//                    chunked body that grows past it closes the connection;
//                    the whole body within `body_timeout`
//   silence          `idle_timeout` with no byte either way closes it
//   streams          a quiet stream gets `stream_heartbeat_chunk` every
//                    `stream_heartbeat`, and a stream whose client closed its
//                    end is noticed within a second, so a reader that left
//                    frees what it held
//
// Routes run on the server's thread and must not block: they answer at once
// or hand the work off and answer later through their HttpResponder.
//
// Lifecycle: Start binds and serves; Shutdown (or destruction) ends open
// answers (503 for those not begun, streams cut), closes the listener and
// joins the thread.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/http/http_message.h"
#include "common/http/http_responder.h"

namespace taskboard::http {

struct HttpLimits {
  int max_connections = 1024;
  int max_connections_per_address = 64;
  size_t max_header_bytes = 32 << 10;
  absl::Duration header_timeout = absl::Seconds(10);
  absl::Duration body_timeout = absl::Seconds(60);
  absl::Duration idle_timeout = absl::Seconds(30);
  absl::Duration stream_heartbeat = absl::Seconds(15);
};

using HttpHandler =
    std::function<void(HttpRequest request, std::shared_ptr<HttpResponder> responder)>;

struct HttpRoute {
  std::string method;  // "GET", "POST"
  // The path it serves: exactly, or every path that starts with it when
  // `prefix`.
  std::string path;
  bool prefix = false;
  // The largest body it reads; 0: none.
  int64_t max_body_bytes = 0;
  // The answer to a declared body over `max_body_bytes` (413); unset: a
  // plain text one naming the limit.
  std::function<HttpResponse(int64_t max_body_bytes)> too_large;
  // Looks at the request's head before any of its body is read: an answer
  // here refuses it (403, 415, ...) and the body is never read.
  std::function<std::optional<HttpResponse>(const HttpRequest& head)> admit;
  // The whole request, on the server's thread.
  HttpHandler handle;
};

struct HttpServerOptions {
  // For logs and errors: "HTTP API", "metrics".
  std::string name = "HTTP";
  std::string host = "127.0.0.1";
  // 0: any free port (read it back with port()).
  int port = 0;
  // HTTPS with this certificate chain and key (PEM files); both or neither.
  std::string tls_cert_file;
  std::string tls_key_file;
  HttpLimits limits;
  std::vector<HttpRoute> routes;
  // The answer to a path no route serves; unset: a plain 404.
  std::function<HttpResponse(const HttpRequest& head)> not_found;
  // Added to every answer (e.g. X-Content-Type-Options: nosniff).
  std::vector<std::pair<std::string, std::string>> headers;
  // Written to a stream that has sent nothing for `stream_heartbeat`; a
  // failed write is how a client that vanished without closing is found.
  std::string stream_heartbeat_chunk = ": keep-alive\n\n";
};

class HttpServer {
 public:
  // INVALID_ARGUMENT for half a TLS pair or a bad limit; UNAVAILABLE when the
  // address cannot be bound or the TLS files cannot be read.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(HttpServerOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  // Connections open now.
  int connections() const;

  // Idempotent; safe from any thread but the server's own.
  void Shutdown();

 private:
  class Loop;
  explicit HttpServer(std::unique_ptr<Loop> loop, int port);

  std::unique_ptr<Loop> loop_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace taskboard::http

#endif  // TASKBOARD_COMMON_HTTP_HTTP_SERVER_H_
