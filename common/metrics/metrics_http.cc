#include "common/metrics/metrics_http.h"

#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "common/http/http_server.h"
#include "common/metrics/text_format.h"

namespace taskboard::metrics {

http::HttpRoute ProbeRoute(std::string path, HealthCheck check) {
  http::HttpRoute route;
  route.method = "GET";
  route.path = std::move(path);
  route.handle = [check = std::move(check)](http::HttpRequest,
                                            std::shared_ptr<http::HttpResponder> responder) {
    const absl::Status status = check ? check() : absl::OkStatus();
    responder->Respond(status.ok()
                           ? http::HttpResponse::Text(200, "ok\n")
                           : http::HttpResponse::Text(503, absl::StrCat(status.message(), "\n")));
  };
  return route;
}

absl::Status ParseMetricsListen(absl::string_view listen, MetricsHttpOptions& out) {
  const size_t colon = listen.rfind(':');
  int port = -1;
  if (colon == absl::string_view::npos || colon == 0 ||
      !absl::SimpleAtoi(listen.substr(colon + 1), &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--metrics-listen '", listen, "' is not HOST:PORT (e.g. 0.0.0.0:9464, port 0 = any)"));
  }
  out.host = std::string(listen.substr(0, colon));
  out.port = port;
  return absl::OkStatus();
}

absl::Status CheckMetricsFlags(absl::string_view listen, absl::string_view port_file,
                               MetricsHttpOptions& out) {
  if (!listen.empty()) return ParseMetricsListen(listen, out);
  if (!port_file.empty()) {
    return absl::InvalidArgumentError("--metrics-port-file needs --metrics-listen");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> ServeMetrics(const Registry* registry,
                                                                MetricsHttpOptions options,
                                                                const std::string& port_file) {
  absl::StatusOr<std::unique_ptr<MetricsHttpServer>> server =
      MetricsHttpServer::Start(registry, std::move(options));
  if (!server.ok() || port_file.empty()) return server;
  if (!WriteFileAtomically(port_file, absl::StrCat((*server)->port(), "\n"))) {
    return absl::InternalError(absl::StrCat("cannot write --metrics-port-file '", port_file, "'"));
  }
  return server;
}

MetricsHttpServer::MetricsHttpServer(std::unique_ptr<http::HttpServer> http)
    : http_(std::move(http)) {}

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    const Registry* registry, MetricsHttpOptions options) {
  http::HttpServerOptions serving;
  serving.name = "metrics";
  serving.host = options.host;
  serving.port = options.port;
  serving.tls_cert_file = options.tls_cert_file;
  serving.tls_key_file = options.tls_key_file;
  serving.headers = {{"X-Content-Type-Options", "nosniff"}, {"Cache-Control", "no-store"}};
  http::HttpRoute metrics;
  metrics.method = "GET";
  metrics.path = "/metrics";
  metrics.handle = [registry](http::HttpRequest, std::shared_ptr<http::HttpResponder> responder) {
    http::HttpResponse response;
    response.content_type = std::string(kTextFormatContentType);
    response.body = SerializeTextFormat(registry->Collect());
    responder->Respond(std::move(response));
  };
  serving.routes = {std::move(metrics), ProbeRoute("/healthz", std::move(options.health)),
                    ProbeRoute("/readyz", std::move(options.readiness))};
  absl::StatusOr<std::unique_ptr<http::HttpServer>> started =
      http::HttpServer::Start(std::move(serving));
  if (!started.ok()) return started.status();
  return std::unique_ptr<MetricsHttpServer>(new MetricsHttpServer(*std::move(started)));
}

MetricsHttpServer::~MetricsHttpServer() { Shutdown(); }

int MetricsHttpServer::port() const { return http_->port(); }

void MetricsHttpServer::Shutdown() { http_->Shutdown(); }

}  // namespace taskboard::metrics
