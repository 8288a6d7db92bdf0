#include "scheduler/web/http_flags.h"

#include <CLI/CLI.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "common/metrics/metrics_http.h"
#include "scheduler/auth/listen_exposure.h"
#include "scheduler/web/console_config.h"

namespace taskboard::web {

void AddHttpFlags(CLI::App& app, HttpFlags& flags) {
  app.add_option("--http-listen", flags.http_listen,
                 "Serve the HTTP API (/api/v1/) and the web console over HTTP on HOST:PORT "
                 "(port 0: any free); empty: off")
      ->envname("TASKBOARD_HTTP_LISTEN");
  app.add_option("--http-port-file", flags.http_port_file,
                 "With --http-listen: write the HTTP port chosen to this file")
      ->envname("TASKBOARD_HTTP_PORT_FILE");
  app.add_option("--metrics-listen", flags.metrics_listen,
                 "Serve Prometheus /metrics and the /healthz, /readyz probes on HOST:PORT, on a "
                 "thread of their own (port 0: any free); for Prometheus and the kubelet only: "
                 "the metrics name tenants; empty: off")
      ->envname("TASKBOARD_METRICS_LISTEN");
  app.add_option("--metrics-port-file", flags.metrics_port_file,
                 "With --metrics-listen: write the port chosen to this file")
      ->envname("TASKBOARD_METRICS_PORT_FILE");
  app.add_flag("--http-tls", flags.http_tls,
               "Serve the --http-listen port (HTTP API, console) as HTTPS with --tls-cert / "
               "--tls-key [default: on when they are given]; --http-tls=false keeps it "
               "plain HTTP")
      ->envname("TASKBOARD_HTTP_TLS")
      ->each([&flags](const std::string&) { flags.http_tls_given = true; });
  app.add_option("--http-max-body-bytes", flags.max_body_bytes,
                 "HTTP API: largest request body, however it is framed (413, or the connection "
                 "closed for a chunked body that grows past it)")
      ->envname("TASKBOARD_HTTP_MAX_BODY_BYTES")
      ->check(CLI::Range(int64_t{1024}, int64_t{1} << 30))
      ->capture_default_str();
  app.add_option("--http-max-streams", flags.max_streams,
                 "HTTP API: most WatchRun event streams open at once")
      ->envname("TASKBOARD_HTTP_MAX_STREAMS")
      ->check(CLI::Range(1, 100'000))
      ->capture_default_str();
  app.add_option("--http-max-streams-per-tenant", flags.max_streams_per_tenant,
                 "HTTP API: most event streams open at once for one tenant")
      ->envname("TASKBOARD_HTTP_MAX_STREAMS_PER_TENANT")
      ->check(CLI::Range(1, 100'000))
      ->capture_default_str();
  app.add_option("--http-stream-seconds", flags.stream_seconds,
                 "HTTP API: an event stream ends after this long (readers reconnect with "
                 "Last-Event-ID)")
      ->envname("TASKBOARD_HTTP_STREAM_SECONDS")
      ->check(CLI::Range(int64_t{1}, int64_t{86'400}))
      ->capture_default_str();
  app.add_option("--http-call-threads", flags.call_threads,
                 "HTTP API: threads that parse, make and answer calls")
      ->envname("TASKBOARD_HTTP_CALL_THREADS")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  app.add_option("--http-max-pending-calls", flags.max_pending_calls,
                 "HTTP API: most calls waiting or running at once (503 above)")
      ->envname("TASKBOARD_HTTP_MAX_PENDING_CALLS")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  app.add_option("--http-max-connections", flags.max_connections,
                 "HTTP port: most connections open at once")
      ->envname("TASKBOARD_HTTP_MAX_CONNECTIONS")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  app.add_option("--http-max-connections-per-address", flags.max_connections_per_address,
                 "HTTP port: most connections open at once from one client address")
      ->envname("TASKBOARD_HTTP_MAX_CONNECTIONS_PER_ADDRESS")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  app.add_option("--http-max-header-bytes", flags.max_header_bytes,
                 "HTTP port: largest request line and headers (431 above)")
      ->envname("TASKBOARD_HTTP_MAX_HEADER_BYTES")
      ->check(CLI::Range(int64_t{4096}, int64_t{16} << 20))
      ->capture_default_str();
  app.add_option("--http-header-timeout-seconds", flags.header_timeout_seconds,
                 "HTTP port: a connection's request line and headers must arrive within this "
                 "long of its opening (or of its previous answer), else it is closed")
      ->envname("TASKBOARD_HTTP_HEADER_TIMEOUT_SECONDS")
      ->check(CLI::Range(int64_t{1}, int64_t{3600}))
      ->capture_default_str();
  app.add_option("--http-body-timeout-seconds", flags.body_timeout_seconds,
                 "HTTP port: a request's whole body must arrive within this long of its "
                 "headers, else the connection is closed")
      ->envname("TASKBOARD_HTTP_BODY_TIMEOUT_SECONDS")
      ->check(CLI::Range(int64_t{1}, int64_t{3600}))
      ->capture_default_str();
  app.add_option("--http-idle-timeout-seconds", flags.idle_timeout_seconds,
                 "HTTP port: a connection on which nothing moves either way this long is closed")
      ->envname("TASKBOARD_HTTP_IDLE_TIMEOUT_SECONDS")
      ->check(CLI::Range(int64_t{1}, int64_t{86'400}))
      ->capture_default_str();
  app.add_option("--http-heartbeat-seconds", flags.heartbeat_seconds,
                 "HTTP API: an event stream quiet this long gets a comment line, so a reader "
                 "that vanished is found by the failed write")
      ->envname("TASKBOARD_HTTP_HEARTBEAT_SECONDS")
      ->check(CLI::Range(int64_t{1}, int64_t{3600}))
      ->capture_default_str();
  app.add_option("--http-allowed-hosts", flags.allowed_hosts,
                 "HTTP port: host names (no port) it answers for besides loopback names on a "
                 "loopback listener; when set, other names are refused (comma-separated)")
      ->envname("TASKBOARD_HTTP_ALLOWED_HOSTS")
      ->delimiter(',');
  app.add_option("--http-allowed-origins", flags.allowed_origins,
                 "HTTP API: origins (https://host[:port]) whose pages may call the API besides "
                 "the console's own (comma-separated)")
      ->envname("TASKBOARD_HTTP_ALLOWED_ORIGINS")
      ->delimiter(',');
  app.add_option("--http-console-token-file", flags.console_token_file,
                 "HTTP API: a file holding a token every API call must carry as "
                 "'Authorization: Bearer TOKEN', for a scheduler without --auth-tokens "
                 "(taskboard dev makes one per session and prints the console link with it)")
      ->envname("TASKBOARD_HTTP_CONSOLE_TOKEN_FILE");
  app.add_option("--trace-url-template", flags.trace_url_template,
                 "Web console: link each traced run to its trace at this URL, {trace_id} "
                 "replaced by the run's trace id, e.g. 'https://tempo.example/trace/{trace_id}' "
                 "(docs/console.md#trace-links); empty: no link")
      ->envname("TASKBOARD_TRACE_URL_TEMPLATE");
}

absl::StatusOr<ApiServerOptions> ApiServerOptionsFromFlags(const HttpFlags& flags,
                                                           const HttpContext& context) {
  ApiServerOptions options;
  metrics::MetricsHttpOptions listen;
  if (absl::Status parsed = metrics::ParseMetricsListen(flags.http_listen, listen); !parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--http-listen '", flags.http_listen,
                     "' is not HOST:PORT (e.g. 127.0.0.1:9464, port 0 = any)"));
  }
  options.host = listen.host;
  options.port = listen.port;
  // A scheduler that has a certificate serves its HTTP port with it too:
  // the console and the HTTP API carry bearer tokens.
  const bool tls = flags.http_tls_given ? flags.http_tls : !context.tls_cert_file.empty();
  if (tls && context.tls_cert_file.empty()) {
    return absl::InvalidArgumentError(
        "--http-tls serves the --http-listen port with --tls-cert and --tls-key: pass all three");
  }
  if (tls) {
    options.tls_cert_file = context.tls_cert_file;
    options.tls_key_file = context.tls_key_file;
  }
  http::HttpLimits& limits = options.limits;
  limits.max_connections = flags.max_connections;
  limits.max_connections_per_address = flags.max_connections_per_address;
  limits.max_header_bytes = static_cast<size_t>(flags.max_header_bytes);
  limits.header_timeout = absl::Seconds(flags.header_timeout_seconds);
  limits.body_timeout = absl::Seconds(flags.body_timeout_seconds);
  limits.idle_timeout = absl::Seconds(flags.idle_timeout_seconds);
  limits.stream_heartbeat = absl::Seconds(flags.heartbeat_seconds);
  options.gateway.stream_timeout = absl::Seconds(flags.stream_seconds);

  HttpApiOptions& api = options.api;
  api.max_body_bytes = flags.max_body_bytes;
  api.call_threads = flags.call_threads;
  api.max_pending_calls = flags.max_pending_calls;
  api.max_streams = flags.max_streams;
  api.max_streams_per_tenant = flags.max_streams_per_tenant;
  api.guard.loopback_listener = auth::ListensOnLoopbackOnly(flags.http_listen);
  for (const std::string& host : flags.allowed_hosts) {
    api.guard.allowed_hosts.push_back(absl::AsciiStrToLower(host));
  }
  api.guard.allowed_origins = flags.allowed_origins;
  if (!flags.console_token_file.empty()) {
    if (context.auth_tokens) {
      return absl::InvalidArgumentError(
          "--http-console-token-file is for a scheduler without --auth-tokens: with tokens, "
          "sign in to the console with one from the tokens file");
    }
    const std::string token(absl::StripAsciiWhitespace(ReadFileOrEmpty(flags.console_token_file)));
    if (token.size() < 16) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--http-console-token-file '", flags.console_token_file,
          "' must hold a token of at least 16 characters (is the file there and readable?)"));
    }
    api.guard.console_token = token;
  }
  if (absl::Status trace = CheckTraceUrlTemplate(flags.trace_url_template); !trace.ok()) {
    return trace;
  }
  options.console.trace_url_template = flags.trace_url_template;
  // The HTTP API answers with the same token checks as gRPC, so the same
  // rule holds for its port: reachable from elsewhere needs tokens or
  // --insecure. Without either, the probes stay served and the API refuses.
  if (!auth::CheckListenExposure(flags.http_listen, context.auth_tokens, context.insecure).ok()) {
    api.refused = absl::PermissionDeniedError(absl::StrCat(
        "the HTTP API is off on ", flags.http_listen,
        ": other machines can reach it and calls need no token; start the scheduler with "
        "--auth-tokens, or with --insecure if the network is trusted"));
  }
  return options;
}

}  // namespace taskboard::web
