#ifndef TASKBOARD_SCHEDULER_WEB_HTTP_MCP_H_
#define TASKBOARD_SCHEDULER_WEB_HTTP_MCP_H_

// Taskboard as an MCP server over Streamable HTTP: POST /mcp on the HTTP
// API's port (docs/mcp.md#taskboard-as-an-mcp-server). Each POST carries
// one JSON-RPC message and is answered with application/json (a request) or
// 202 Accepted (a notification or response); no SSE stream is opened, so
// GET /mcp answers 405. The endpoint is stateless: it issues no
// Mcp-Session-Id, and every request stands alone (docs/decisions.md).
//
// A request passes the same front door as /api/v1/ (request_guard.h: Host,
// Origin, JSON content type, console token), then its Authorization must be
// a token the scheduler accepts (401 otherwise), and every tool's Scheduler
// call carries it through the gateway: the same roles, tenants and limits
// as the HTTP API. Tool calls run on threads of their own, so a run_flow
// waiting for its run holds none of the API's.

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "common/http/http_server.h"
#include "scheduler/server/blocking_pool.h"
#include "scheduler/web/http_api.h"
#include "scheduler/web/json_gateway.h"

namespace taskboard::web {

class HttpMcp {
 public:
  // `gateway` must outlive this. Uses `options`' guard, refusal, body
  // limit, call threads, pending-call bound and token check (stream_tenant).
  HttpMcp(JsonGateway& gateway, HttpApiOptions options);
  ~HttpMcp();
  HttpMcp(const HttpMcp&) = delete;
  HttpMcp& operator=(const HttpMcp&) = delete;

  // POST /mcp and GET /mcp (405), for the HTTP server's routes. This must
  // outlive the server.
  std::vector<http::HttpRoute> Routes();

 private:
  std::optional<http::HttpResponse> Admit(const http::HttpRequest& head) const;
  void Handle(http::HttpRequest request, std::shared_ptr<http::HttpResponder> responder);

  JsonGateway& gateway_;
  const HttpApiOptions options_;
  std::atomic<int> pending_calls_{0};
  server::BlockingPool calls_;
};

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_HTTP_MCP_H_
