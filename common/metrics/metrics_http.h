#ifndef TASKBOARD_COMMON_METRICS_METRICS_HTTP_H_
#define TASKBOARD_COMMON_METRICS_METRICS_HTTP_H_

// The services' operations endpoint, for Prometheus and the kubelet only:
// `GET /metrics` serves the registry in Prometheus' text format 0.0.4;
// `GET /healthz` and `GET /readyz` answer 200 "ok" or 503 with the reason,
// from callbacks the service supplies (liveness: the process can serve;
// readiness: e.g. store open and engine running, or the worker connected).
// A listener and a thread of its own (common/http), so that probes answer
// however busy the scheduler's HTTP API is, and the metrics, which name
// tenants, are never on the port handed to console users.

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/metrics/registry.h"

namespace taskboard::http {
class HttpServer;
struct HttpRoute;
}  // namespace taskboard::http

namespace taskboard::metrics {

// A health or readiness probe: OK -> 200 "ok", any error -> 503 with the
// status message. Called on an HTTP thread for each probe, so it must be
// thread-safe and quick (read a flag, not a disk).
using HealthCheck = std::function<absl::Status()>;

struct MetricsHttpOptions {
  std::string host = "127.0.0.1";
  // 0: any free port (read it back with port()).
  int port = 0;
  // Unset: always 200 "ok" (the process is up and serving HTTP).
  HealthCheck health;
  HealthCheck readiness;
  // Serve HTTPS with this certificate chain and key (PEM files); both or
  // neither.
  std::string tls_cert_file;
  std::string tls_key_file;
};

// Fills `out.host` and `out.port` from a --metrics-listen value HOST:PORT
// (port 0: any free port). INVALID_ARGUMENT naming the flag otherwise.
absl::Status ParseMetricsListen(absl::string_view listen, MetricsHttpOptions& out);

// The --metrics-listen / --metrics-port-file pair every Taskboard service
// takes, checked before anything starts: fills `out` when `listen` is set;
// INVALID_ARGUMENT for a bad HOST:PORT, or for a port file without
// --metrics-listen. An empty `listen` means no endpoint.
absl::Status CheckMetricsFlags(absl::string_view listen, absl::string_view port_file,
                               MetricsHttpOptions& out);

class MetricsHttpServer;

// GET `path` answering `check` as a probe (200 "ok" or 503 with the reason),
// for any HTTP server that serves probes.
http::HttpRoute ProbeRoute(std::string path, HealthCheck check);

// Starts the endpoint and, when `port_file` is set, writes the port it bound
// there through a rename (so a reader never sees half a file). Start's
// errors as they are; INTERNAL naming the file if it cannot be written.
absl::StatusOr<std::unique_ptr<MetricsHttpServer>> ServeMetrics(const Registry* registry,
                                                                MetricsHttpOptions options,
                                                                const std::string& port_file);

class MetricsHttpServer {
 public:
  // `registry` must outlive the server.
  // UNAVAILABLE when the address cannot be bound or the server does not start.
  static absl::StatusOr<std::unique_ptr<MetricsHttpServer>> Start(const Registry* registry,
                                                                  MetricsHttpOptions options);
  ~MetricsHttpServer();
  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  int port() const;

  // Stops accepting and waits for the serving thread. Idempotent.
  void Shutdown();

 private:
  explicit MetricsHttpServer(std::unique_ptr<http::HttpServer> http);

  std::unique_ptr<http::HttpServer> http_;
};

}  // namespace taskboard::metrics

#endif  // TASKBOARD_COMMON_METRICS_METRICS_HTTP_H_
