#ifndef TASKBOARD_WORKER_PROCESS_WORKER_OPTIONS_H_
#define TASKBOARD_WORKER_PROCESS_WORKER_OPTIONS_H_

// What a `taskboard-worker` is told on its command line, one field per flag,
// with the flag's default (worker_flags.h declares the flags, their
// TASKBOARD_* variables and help texts). PrepareWorker (worker_setup.h) turns
// it into what the worker runs with.

#include <cstdint>
#include <string>

#include "common/log/log_flags.h"
#include "common/tls/tls_credentials.h"

namespace taskboard::worker {

// Sent in Hello and printed by --version.
inline constexpr char kWorkerVersion[] = "0.1.0";

// Where per-task directories go unless --data-dir says: the user's state
// directory (XDG), not a fixed name in /tmp another user could create first.
std::string DefaultDataDir();

struct WorkerOptions {
  std::string scheduler = "127.0.0.1:7233";  // --scheduler
  std::string agents_dir;                    // --agents; empty: only the built-in noop agent
  int slots = 4;                             // --slots
  std::string prefetch = "auto";             // --prefetch: auto or a number
  int prefetch_max = 64;                     // --prefetch-max
  std::string worker_id;                     // --worker-id; empty: hostname-pid
  int drain_grace_seconds = 30;              // --drain-grace-seconds
  int64_t keepalive_time_ms = 10'000;        // --keepalive-time-ms
  int64_t keepalive_timeout_ms = 10'000;     // --keepalive-timeout-ms
  // --workspace-root (or --workdir, and TASKBOARD_WORKDIR, the old names);
  // empty: a fresh directory per task under data_dir.
  std::string workspace_root;
  std::string data_dir = DefaultDataDir();  // --data-dir
  std::string tools_dir;                    // --tools
  std::string metrics_listen;               // --metrics-listen; empty: no HTTP port
  std::string metrics_port_file;            // --metrics-port-file
  std::string token;                        // --token
  tls::ClientTlsFlags tls;                  // --tls-ca, --tls-cert, --tls-key
  log::LogFlags log;                        // --log-level, --log-format
  // --otlp-endpoint: the OTLP/HTTP collector's base URL; empty: the
  // OTEL_EXPORTER_OTLP_* variables decide (docs/observability.md#flags).
  std::string otlp_endpoint;
  // --trace-capture-content: LLM spans carry prompt and completion text
  // when the scheduler allows it for the run's tenant
  // (docs/observability.md#prompt-and-completion-content). Off by default.
  bool trace_capture_content = false;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_PROCESS_WORKER_OPTIONS_H_
