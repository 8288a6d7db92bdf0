#ifndef TASKBOARD_SCHEDULER_WEB_HTTP_API_H_
#define TASKBOARD_SCHEDULER_WEB_HTTP_API_H_

// The scheduler's HTTP API (docs/http-api.md) on its HTTP port, beside
// /metrics: `POST /api/v1/<Method>` with the request as JSON calls that
// Scheduler method (json_gateway.h) and answers the response as JSON, or,
// for WatchRun, as server-sent events. Errors are JSON with the gRPC code
// (http_status.h).

#include <cstdint>

#include "absl/status/status.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace taskboard::web {

class JsonGateway;

struct HttpApiOptions {
  // Largest request body (--http-max-body-bytes); larger ones are refused
  // with 413 before they are parsed.
  int64_t max_body_bytes = 16 << 20;
  // Not OK: every API call answers this (the port is reachable from other
  // machines while calls need no token; see the scheduler's main).
  absl::Status refused;
};

// Adds the API's routes to `http`. `gateway` must outlive the server's
// handlers (shut the gateway down, then the HTTP server).
void RouteHttpApi(httplib::Server& http, JsonGateway& gateway, HttpApiOptions options);

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_HTTP_API_H_
