#include "worker/process/worker_flags.h"

#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/command_line.h"
#include "common/failover/scheduler_targets.h"
#include "common/json_depth_flag.h"
#include "common/log/log_flags.h"

namespace taskboard::worker {

void AddWorkerFlags(CLI::App& app, WorkerOptions& options) {
  app.set_version_flag("--version", absl::StrCat("taskboard-worker ", kWorkerVersion));
  app.add_option("--scheduler", options.scheduler,
                 "Scheduler gRPC address (host:port); for replicated schedulers several, "
                 "host:port,host:port, or dns:///name:port (the worker follows the leader)")
      ->envname("TASKBOARD_SCHEDULER")
      ->capture_default_str()
      ->check([](const std::string& value) {
        absl::StatusOr<std::vector<std::string>> targets = failover::ParseSchedulerTargets(value);
        return targets.ok() ? std::string() : std::string(targets.status().message());
      });
  app.add_option("--agents", options.agents_dir,
                 "Directory of agent files (*.json, *.yaml, *.yml, *.md); the built-in noop "
                 "agent is always offered")
      ->envname("TASKBOARD_AGENTS_DIR");
  app.add_option("--slots", options.slots, "Tasks run at the same time")
      ->envname("TASKBOARD_SLOTS")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  app.add_option("--prefetch", options.prefetch,
                 "Assignments taken ahead of the slots, queued here to start the moment a slot "
                 "frees: auto (as many as --slots, growing up to --prefetch-max while tasks "
                 "end faster than a round trip to the scheduler), or a fixed number (0 takes "
                 "work only for idle slots, for long tasks where a queued one should rather "
                 "wait for any worker)")
      ->envname("TASKBOARD_PREFETCH")
      ->check([](const std::string& value) -> std::string {
        int n = 0;
        if (value == "auto" || (absl::SimpleAtoi(value, &n) && n >= 0 && n <= 4096)) return "";
        return "must be auto or a number from 0 to 4096, not \"" + value + "\"";
      })
      ->capture_default_str();
  app.add_option("--prefetch-max", options.prefetch_max,
                 "The most assignments --prefetch auto queues ahead of the slots")
      ->envname("TASKBOARD_PREFETCH_MAX")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  app.add_option("--worker-id", options.worker_id,
                 "Stable id of this worker (default: hostname-pid)")
      ->envname("TASKBOARD_WORKER_ID");
  app.add_option("--drain-grace-seconds", options.drain_grace_seconds,
                 "On SIGTERM/SIGINT, how long running tasks may finish before they are "
                 "cancelled and returned")
      ->envname("TASKBOARD_DRAIN_GRACE_SECONDS")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--keepalive-time-ms", options.keepalive_time_ms,
                 "Ping the scheduler after this much silence on the stream; a ping unanswered "
                 "within --keepalive-timeout-ms ends the stream and the worker reconnects")
      ->envname("TASKBOARD_KEEPALIVE_TIME_MS")
      ->check(CLI::Range(int64_t{1'000}, int64_t{INT32_MAX}))
      ->capture_default_str();
  app.add_option("--keepalive-timeout-ms", options.keepalive_timeout_ms,
                 "How long a keepalive ping may go unanswered")
      ->envname("TASKBOARD_KEEPALIVE_TIMEOUT_MS")
      ->check(CLI::Range(int64_t{100}, int64_t{INT32_MAX}))
      ->capture_default_str();
  app.add_option("--workspace-root,--workdir", options.workspace_root,
                 "One directory every task works in (a checkout the agents share): a phase's cwd "
                 "is relative to it and may not leave it. Default: none, each task gets a fresh "
                 "empty directory under --data-dir, removed when it ends (--workdir is the old "
                 "name)")
      ->envname("TASKBOARD_WORKSPACE_ROOT");
  app.add_option("--data-dir", options.data_dir,
                 "Without --workspace-root: where the per-task directories are made, in "
                 "<data-dir>/<worker-id>/<lease-id> (mode 0700; default: "
                 "$XDG_STATE_HOME/taskboard/worker, else ~/.local/state/taskboard/worker)")
      ->envname("TASKBOARD_WORKER_DATA_DIR");
  app.add_option("--tools", options.tools_dir,
                 "Directory of tool files (*.json, *.yaml, *.yml) that agents may call besides "
                 "the built-in read_file and list_files")
      ->envname("TASKBOARD_TOOLS");
  app.add_option("--metrics-listen", options.metrics_listen,
                 "Serve Prometheus /metrics, /healthz and /readyz over HTTP on HOST:PORT "
                 "(port 0: any free port; empty: off)")
      ->envname("TASKBOARD_METRICS_LISTEN");
  app.add_option("--metrics-port-file", options.metrics_port_file,
                 "With --metrics-listen: write the metrics port chosen to this file")
      ->envname("TASKBOARD_METRICS_PORT_FILE");
  app.add_option("--token", options.token,
                 "Bearer token (role worker) for a scheduler started with --auth-tokens")
      ->envname("TASKBOARD_TOKEN");
  app.add_option("--tls-ca", options.tls.ca,
                 "Connect over TLS, trusting the scheduler certificate signed by this CA (PEM)")
      ->envname("TASKBOARD_TLS_CA");
  app.add_option("--tls-cert", options.tls.cert, "With --tls-ca: client certificate for mTLS (PEM)")
      ->envname("TASKBOARD_TLS_CERT");
  app.add_option("--tls-key", options.tls.key, "The private key of --tls-cert (PEM)")
      ->envname("TASKBOARD_TLS_KEY");
  app.add_option("--otlp-endpoint", options.otlp_endpoint,
                 "Export trace spans over OTLP/HTTP (protobuf) to this collector base URL "
                 "(spans go to <URL>/v1/traces); wins over OTEL_EXPORTER_OTLP_ENDPOINT and "
                 "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT. Only assignments the scheduler traced "
                 "get spans (docs/observability.md)");
  app.add_flag("--trace-capture-content", options.trace_capture_content,
               "Put prompt and completion text on LLM call spans (gen_ai.input.messages, "
               "gen_ai.output.messages), bounded in size, for runs whose tenant does not turn it "
               "off (traceContent: false in the scheduler's --llm-limits). Off by default: the "
               "text may hold secrets and personal data (docs/observability.md)")
      ->envname("TASKBOARD_TRACE_CAPTURE_CONTENT");
  log::AddLogFlags(app, &options.log);
  AddJsonDepthFlag(app);
}

std::optional<int> ParseWorkerFlags(int argc, char** argv, WorkerOptions& options) {
  CLI::App app{"taskboard-worker: runs Taskboard agent tasks for a scheduler"};
  AddWorkerFlags(app, options);
  return ParseCommandLine(app, argc, argv);
}

}  // namespace taskboard::worker
