#ifndef TASKBOARD_SCHEDULER_WEB_API_SERVER_H_
#define TASKBOARD_SCHEDULER_WEB_API_SERVER_H_

// The scheduler's HTTP port (--http-listen): the HTTP API at /api/v1/
// (http_api.h), the MCP endpoint at /mcp (http_mcp.h), the web console at /
// (console_routes.h) and the liveness
// and readiness probes, behind the front door's limits (common/http). The
// metrics are not here: they name tenants, and live on --metrics-listen for
// Prometheus alone (docs/metrics.md).

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/http/http_server.h"
#include "common/metrics/metrics_http.h"
#include "scheduler/web/console_config.h"
#include "scheduler/web/http_api.h"
#include "scheduler/web/http_mcp.h"
#include "scheduler/web/json_gateway.h"

namespace grpc {
class Channel;
}  // namespace grpc

namespace taskboard::web {

struct ApiServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
  std::string tls_cert_file;
  std::string tls_key_file;
  http::HttpLimits limits;
  GatewayOptions gateway;
  ConsoleOptions console;
  HttpApiOptions api;
  metrics::HealthCheck readiness;
};

class ApiServer {
 public:
  // `channel`: in-process to the scheduler's own gRPC server. The listener's
  // errors as http::HttpServer::Start gives them.
  static absl::StatusOr<std::unique_ptr<ApiServer>> Start(ApiServerOptions options,
                                                          std::shared_ptr<grpc::Channel> channel);
  ~ApiServer();

  int port() const { return http_->port(); }
  int open_streams() const { return api_->open_streams(); }

  // Ends the open streams and calls, then the listener; before the gRPC
  // server stops. Idempotent.
  void Shutdown();

 private:
  ApiServer() = default;

  std::unique_ptr<JsonGateway> gateway_;
  std::unique_ptr<HttpApi> api_;
  std::unique_ptr<HttpMcp> mcp_;
  std::unique_ptr<http::HttpServer> http_;
};

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_API_SERVER_H_
