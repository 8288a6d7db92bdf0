#ifndef TASKBOARD_WORKER_PROCESS_WORKER_SETUP_H_
#define TASKBOARD_WORKER_PROCESS_WORKER_SETUP_H_

// From a `taskboard-worker` command line to what the worker runs with: the
// process configured (logging, secrets, agent confinement), the options
// checked and the files they name loaded. Everything here happens before the
// session starts, and each error is a usage error: the caller prints it as
// "taskboard-worker: <message>" and exits 2.

#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/metrics/metrics_http.h"
#include "common/otel/tracing_options.h"
#include "worker/agents/agent_registry.h"
#include "worker/process/worker_options.h"
#include "worker/session/session.h"
#include "worker/tools/tool_registry.h"

namespace taskboard::worker {

struct WorkerSetup {
  // All but `metrics`, which WorkerServer owns; `tools` points into `tools`
  // below.
  SessionOptions session;
  std::unique_ptr<ToolRegistry> tools;
  std::unique_ptr<AgentRegistry> agents;
  // --metrics-listen (empty: no HTTP port) as HOST and PORT, and
  // --metrics-port-file.
  std::string metrics_listen;
  metrics::MetricsHttpOptions http;
  std::string metrics_port_file;
  // For the start-up line: "auto (4 to 64)" or the fixed number, and the
  // cgroup under which tasks get theirs, or why there is none.
  std::string prefetch_label;
  absl::StatusOr<std::filesystem::path> task_cgroups;
  // The OTEL_* variables and --otlp-endpoint (docs/observability.md#flags);
  // WorkerServer builds the tracing from them.
  otel::TracingOptions tracing;
};

// In this order: logging (the process-wide logger and gRPC's lines); the
// worker token and the default LLM key out of the environment, and the
// process made non-dumpable (worker/base/secret_environment.h); the TLS
// credentials; the metrics flags; the tracing options; the workspace root; the tools and the
// agents; taskboard-reaper found, the worker made the child subreaper, the
// delegated cgroup (if any) made the parent of task cgroups; the per-task
// directories. An error says what is wrong and what to do, for the operator.
absl::StatusOr<WorkerSetup> PrepareWorker(const WorkerOptions& options);

// --workspace-root, else TASKBOARD_WORKDIR (the variable of its old name),
// made absolute; empty for none. INVALID_ARGUMENT when it is not a directory.
absl::StatusOr<std::filesystem::path> WorkspaceRoot(const WorkerOptions& options);

// The session's queue ahead of the slots. --prefetch auto: it starts at
// --slots and grows up to --prefetch-max (at least --slots); a number: that
// many, fixed (max_prefetch 0).
struct PrefetchSetting {
  int prefetch = 0;
  int max_prefetch = 0;
  std::string label;  // for the start-up line
};
PrefetchSetting ResolvePrefetch(const WorkerOptions& options);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_PROCESS_WORKER_SETUP_H_
