#ifndef TASKBOARD_SCHEDULER_WEB_HTTP_FLAGS_H_
#define TASKBOARD_SCHEDULER_WEB_HTTP_FLAGS_H_

// The scheduler's HTTP flags (docs/http-api.md#limits, docs/services.md):
// --http-listen (the API and the console), --metrics-listen (Prometheus and
// the probes), and every limit of the front door, turned into the options
// of the two servers.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/web/api_server.h"

namespace CLI {
class App;
}  // namespace CLI

namespace taskboard::web {

struct HttpFlags {
  std::string http_listen;
  std::string http_port_file;
  std::string metrics_listen;
  std::string metrics_port_file;
  bool http_tls = false;
  // --http-tls (or TASKBOARD_HTTP_TLS) was given, whatever its value:
  // without it the port serves TLS when the scheduler has a certificate.
  bool http_tls_given = false;
  int64_t max_body_bytes = 16 << 20;
  int64_t stream_seconds = 300;
  int max_streams = 256;
  int max_streams_per_tenant = 32;
  int call_threads = 4;
  int max_pending_calls = 256;
  int max_connections = 1024;
  int max_connections_per_address = 64;
  int64_t max_header_bytes = 32 << 10;
  int64_t header_timeout_seconds = 10;
  int64_t body_timeout_seconds = 60;
  int64_t idle_timeout_seconds = 30;
  int64_t heartbeat_seconds = 15;
  std::vector<std::string> allowed_hosts;
  std::vector<std::string> allowed_origins;
  std::string console_token_file;
  // --trace-url-template: the console's link from a run to its trace.
  std::string trace_url_template;
};

void AddHttpFlags(CLI::App& app, HttpFlags& flags);

// What the flags leave to decide with the rest of the scheduler's flags.
struct HttpContext {
  std::string tls_cert_file;  // --tls-cert / --tls-key
  std::string tls_key_file;
  bool auth_tokens = false;  // --auth-tokens given
  bool insecure = false;
};

// The API server's options from the flags (without readiness and tenant
// lookups, which need the running scheduler). INVALID_ARGUMENT naming the
// flag for a bad listen address, --http-tls without a certificate, or a
// console token where tokens are required, a --trace-url-template that is not
// an http(s) URL holding {trace_id}; the console token file's read error as
// UNAVAILABLE.
absl::StatusOr<ApiServerOptions> ApiServerOptionsFromFlags(const HttpFlags& flags,
                                                           const HttpContext& context);

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_HTTP_FLAGS_H_
