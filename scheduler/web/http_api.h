#ifndef TASKBOARD_SCHEDULER_WEB_HTTP_API_H_
#define TASKBOARD_SCHEDULER_WEB_HTTP_API_H_

// The scheduler's HTTP API (docs/http-api.md): `POST /api/v1/<Method>` with
// the request as JSON calls that Scheduler method (json_gateway.h) and
// answers the response as JSON, or, for WatchRun, as server-sent events
// (watch_bridge.h). Errors are JSON with the gRPC code (http_status.h).
// `POST /api/v1/events/<name>` publishes its body as an event to the
// triggers of that name (PublishEvent; docs/http-api.md#events).
//
// Before a byte of a body is read, the head must pass the request guard
// (request_guard.h: Host, Origin, JSON content type, console token) and name
// a method the API has. Unary calls run on a few threads of their own, at
// most `max_pending_calls` waiting or running (503 beyond); streams hold no
// thread, and at most `max_streams` (`max_streams_per_tenant` for one
// tenant) are open.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/http/http_server.h"
#include "scheduler/server/blocking_pool.h"
#include "scheduler/web/json_gateway.h"
#include "scheduler/web/request_guard.h"
#include "scheduler/web/stream_slots.h"

namespace taskboard::web {

struct HttpApiOptions {
  // Largest request body (--http-max-body-bytes).
  int64_t max_body_bytes = 16 << 20;
  // Not OK: every API call answers this (the port is reachable from other
  // machines while calls need no token; see the scheduler's main).
  absl::Status refused;
  RequestGuardOptions guard;
  // --http-call-threads and --http-max-pending-calls.
  int call_threads = 4;
  int max_pending_calls = 256;
  // --http-max-streams and --http-max-streams-per-tenant.
  int max_streams = 256;
  int max_streams_per_tenant = 32;
  // The tenant a WatchRun caller's `Authorization` belongs to, for the
  // per-tenant bound, or the refusal of the token (answered before any
  // stream is opened). Unset: every caller is one tenant, "".
  std::function<absl::StatusOr<std::string>(absl::string_view authorization)> stream_tenant;
};

class HttpApi {
 public:
  // `gateway` must outlive the API.
  HttpApi(JsonGateway& gateway, HttpApiOptions options);
  ~HttpApi();
  HttpApi(const HttpApi&) = delete;
  HttpApi& operator=(const HttpApi&) = delete;

  // POST /api/v1/<Method>, for the HTTP server's routes. The API must
  // outlive the server.
  http::HttpRoute Route();

  int open_streams() const { return slots_.open(); }

 private:
  std::optional<http::HttpResponse> Admit(const http::HttpRequest& head) const;
  // POST /api/v1/events/<name> (docs/http-api.md#events): its head, then
  // PublishEvent with the body as the payload and the headers beside it.
  std::optional<http::HttpResponse> AdmitEvent(const http::HttpRequest& head) const;
  void Publish(const http::HttpRequest& request,
               const std::shared_ptr<http::HttpResponder>& responder);
  void Handle(http::HttpRequest request, std::shared_ptr<http::HttpResponder> responder);
  void Stream(const http::HttpRequest& request, absl::string_view method,
              std::shared_ptr<http::HttpResponder> responder);

  JsonGateway& gateway_;
  const HttpApiOptions options_;
  StreamSlots slots_;
  std::atomic<int> pending_calls_{0};
  server::BlockingPool calls_;
};

// An error as the API answers it: JSON, the code's HTTP status (or
// `http_status` when given), never cached.
http::HttpResponse JsonError(const absl::Status& status, int http_status = 0);

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_HTTP_API_H_
