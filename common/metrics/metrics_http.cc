#include "common/metrics/metrics_http.h"

#include <httplib.h>
#include <sys/socket.h>

#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/files.h"
#include "common/metrics/text_format.h"

namespace taskboard::metrics {
namespace {

httplib::Server::Handler ProbeHandler(HealthCheck check) {
  return [check = std::move(check)](const httplib::Request&, httplib::Response& response) {
    const absl::Status status = check ? check() : absl::OkStatus();
    if (status.ok()) {
      response.status = 200;
      response.set_content("ok\n", "text/plain; charset=utf-8");
    } else {
      response.status = 503;
      response.set_content(absl::StrCat(status.message(), "\n"), "text/plain; charset=utf-8");
    }
  };
}

}  // namespace

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

namespace {

std::unique_ptr<httplib::Server> NewServer(const MetricsHttpOptions& options) {
  if (options.tls_cert_file.empty()) return std::make_unique<httplib::Server>();
  return std::make_unique<httplib::SSLServer>(options.tls_cert_file.c_str(),
                                              options.tls_key_file.c_str());
}

}  // namespace

MetricsHttpServer::MetricsHttpServer(const Registry* registry, MetricsHttpOptions options)
    : registry_(registry), options_(std::move(options)), http_(NewServer(options_)) {}

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    const Registry* registry, MetricsHttpOptions options) {
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return absl::InvalidArgumentError("the HTTP port's TLS needs both a certificate and a key");
  }
  std::unique_ptr<MetricsHttpServer> server(new MetricsHttpServer(registry, std::move(options)));
  if (!server->http_->is_valid()) {
    return absl::UnavailableError(absl::StrCat(
        "the HTTP port cannot serve TLS with ", server->options_.tls_cert_file, " and ",
        server->options_.tls_key_file, ": check that both are readable PEM files that match"));
  }
  server->Route();
  if (server->options_.routes) server->options_.routes(*server->http_);
  if (const int threads = server->options_.threads; threads > 0) {
    server->http_->new_task_queue = [threads] {
      return new httplib::ThreadPool(static_cast<size_t>(threads));
    };
  }
  // httplib's default adds SO_REUSEPORT, which lets a second process bind the
  // same port and take half the scrapes; SO_REUSEADDR alone still allows a
  // quick restart while old connections linger in TIME_WAIT.
  server->http_->set_socket_options([](socket_t socket) {
    int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  const std::string& host = server->options_.host;
  const int port = server->options_.port;
  if (port == 0) {
    server->port_ = server->http_->bind_to_any_port(host);
  } else {
    server->port_ = server->http_->bind_to_port(host, port) ? port : -1;
  }
  if (server->port_ <= 0) {
    return absl::UnavailableError(absl::StrCat("metrics endpoint cannot listen on ", host, ":",
                                               port, ": pick a free port, or port 0 for any"));
  }
  server->serving_ = std::thread([http = server->http_.get()] { http->listen_after_bind(); });
  // httplib's stop() is a no-op until the accept loop runs, so Shutdown could
  // miss it: return only once it runs (the same wait as tools/fake-llm).
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (!server->http_->is_running()) {
    if (absl::Now() > deadline) {
      return absl::UnavailableError("the metrics HTTP accept loop did not start within 10 s");
    }
    absl::SleepFor(absl::Milliseconds(1));
  }
  return server;
}

MetricsHttpServer::~MetricsHttpServer() { Shutdown(); }

void MetricsHttpServer::Shutdown() {
  http_->stop();
  if (serving_.joinable()) serving_.join();
}

void MetricsHttpServer::Route() {
  http_->Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
    response.set_content(SerializeTextFormat(registry_->Collect()),
                         std::string(kTextFormatContentType));
  });
  http_->Get("/healthz", ProbeHandler(options_.health));
  http_->Get("/readyz", ProbeHandler(options_.readiness));
}

}  // namespace taskboard::metrics
