#include "scheduler/web/api_server.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/web/console_routes.h"
#include "scheduler/web/http_mcp.h"

namespace taskboard::web {
namespace {

http::HttpResponse NotFound(const http::HttpRequest& head) {
  if (absl::StartsWith(head.path, "/api/")) {
    return JsonError(absl::NotFoundError(
        absl::StrCat(head.method, " ", head.path,
                     " is not part of the API: call POST /api/v1/<Method> (docs/http-api.md)")));
  }
  if (head.path == "/metrics") {
    return http::HttpResponse::Text(
        404,
        "Metrics are served on the scheduler's --metrics-listen port, for Prometheus "
        "(docs/metrics.md), not on the console's port.\n");
  }
  return http::HttpResponse::Text(404, "Not found.\n");
}

}  // namespace

absl::StatusOr<std::unique_ptr<ApiServer>> ApiServer::Start(
    ApiServerOptions options, std::shared_ptr<grpc::Channel> channel) {
  std::unique_ptr<ApiServer> server(new ApiServer());
  server->gateway_ = std::make_unique<JsonGateway>(std::move(channel), options.gateway);
  const RequestGuardOptions guard = options.api.guard;
  server->mcp_ = std::make_unique<HttpMcp>(*server->gateway_, options.api);
  server->api_ = std::make_unique<HttpApi>(*server->gateway_, std::move(options.api));

  http::HttpServerOptions serving;
  serving.name = "HTTP API";
  serving.host = options.host;
  serving.port = options.port;
  serving.tls_cert_file = options.tls_cert_file;
  serving.tls_key_file = options.tls_key_file;
  serving.limits = options.limits;
  serving.headers = {{"X-Content-Type-Options", "nosniff"}};
  serving.routes = ConsoleRoutes(guard, options.console);
  serving.routes.push_back(server->api_->Route());
  for (http::HttpRoute& route : server->mcp_->Routes()) serving.routes.push_back(std::move(route));
  serving.routes.push_back(metrics::ProbeRoute("/healthz", nullptr));
  serving.routes.push_back(metrics::ProbeRoute("/readyz", std::move(options.readiness)));
  serving.not_found = &NotFound;
  absl::StatusOr<std::unique_ptr<http::HttpServer>> http =
      http::HttpServer::Start(std::move(serving));
  if (!http.ok()) return http.status();
  server->http_ = *std::move(http);
  return server;
}

ApiServer::~ApiServer() { Shutdown(); }

void ApiServer::Shutdown() {
  if (gateway_ != nullptr) gateway_->Shutdown();
  if (http_ != nullptr) http_->Shutdown();
}

}  // namespace taskboard::web
