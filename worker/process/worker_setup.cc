#include "worker/process/worker_setup.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <system_error>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/log/grpc_log.h"
#include "common/log/log.h"
#include "common/log/log_flags.h"
#include "common/otel/tracing_environment.h"
#include "worker/agents/command_agent.h"
#include "worker/base/inherited_children.h"
#include "worker/base/secret_environment.h"
#include "worker/base/subprocess.h"
#include "worker/base/task_cgroup.h"

namespace taskboard::worker {
namespace {

std::string DefaultWorkerId() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return absl::StrCat(host[0] != '\0' ? host : "worker", "-", getpid());
}

// Logging first, so that what follows can log; then the secrets.
absl::Status ConfigureProcess(const WorkerOptions& options) {
  if (absl::Status logging = log::ConfigureFromFlags(options.log, "worker"); !logging.ok()) {
    return logging;
  }
  log::RouteGrpcLogs();
  // Agents run as this user: the worker token (which receives every
  // tenant's tasks) and the default LLM key leave the environment, and the
  // process cannot be read by them (worker/base/secret_environment.h). llm
  // agents take their own apiKeyEnv as they load.
  TakeSecretFromEnvironment("TASKBOARD_TOKEN");
  TakeSecretFromEnvironment("OPENAI_API_KEY");
  if (!MakeProcessNonDumpable()) {
    log::Warn(
        "could not make the worker non-dumpable: agents running as its user may read its memory");
  }
  return absl::OkStatus();
}

// Everything an agent or command tool starts ends with its task
// (docs/security.md#agent-confinement): each runs under taskboard-reaper,
// in a cgroup of its own where the worker has a delegated one, and the
// worker ends whatever a killed reaper leaves to it.
absl::Status ConfineAgentProcesses(WorkerSetup& setup) {
  if (absl::StatusOr<std::string> reaper = FindReaper(); !reaper.ok()) return reaper.status();
  if (absl::Status subreaper = BecomeChildSubreaper(); !subreaper.ok()) return subreaper;
  setup.task_cgroups = DelegatedCgroup();
  if (setup.task_cgroups.ok()) SetDefaultTaskCgroupParent(*setup.task_cgroups);
  return absl::OkStatus();
}

// The OTEL_* environment, then --otlp-endpoint. Sampling is always
// parent-based: the worker records spans only under an assignment's
// traceparent, whose sampled flag is the scheduler's decision for the
// whole run (docs/decisions.md, decision 169).
absl::StatusOr<otel::TracingOptions> TracingFromFlags(const WorkerOptions& options) {
  absl::StatusOr<otel::TracingEnvironment> environment = otel::TracingForService(
      otel::ProcessEnvironment(), "taskboard-worker", {.otlp_endpoint = options.otlp_endpoint});
  if (!environment.ok()) return environment.status();
  for (const std::string& warning : environment->warnings) {
    log::Warn("ignored an OpenTelemetry variable").With("warning", warning);
  }
  environment->options.sampler.parent_based = true;
  return environment->options;
}

}  // namespace

absl::StatusOr<std::filesystem::path> WorkspaceRoot(const WorkerOptions& options) {
  std::string root = options.workspace_root;
  if (const char* old_variable = getenv("TASKBOARD_WORKDIR");
      root.empty() && old_variable != nullptr) {
    root = old_variable;
  }
  if (root.empty()) return std::filesystem::path();
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--workspace-root '", root,
                     "' is not a directory: create it, or point the flag at an existing one"));
  }
  return std::filesystem::absolute(root);
}

PrefetchSetting ResolvePrefetch(const WorkerOptions& options) {
  PrefetchSetting setting;
  if (options.prefetch == "auto") {
    setting.prefetch = options.slots;
    setting.max_prefetch = std::max(options.slots, options.prefetch_max);
    setting.label = absl::StrCat("auto (", setting.prefetch, " to ", setting.max_prefetch, ")");
  } else {
    (void)absl::SimpleAtoi(options.prefetch, &setting.prefetch);  // checked by the flag
    setting.label = options.prefetch;
  }
  return setting;
}

absl::StatusOr<WorkerSetup> PrepareWorker(const WorkerOptions& options) {
  if (absl::Status process = ConfigureProcess(options); !process.ok()) return process;
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      tls::ChannelCredentials(options.tls);
  if (!credentials.ok()) return credentials.status();
  WorkerSetup setup;
  if (absl::Status flags =
          metrics::CheckMetricsFlags(options.metrics_listen, options.metrics_port_file, setup.http);
      !flags.ok()) {
    return flags;
  }
  setup.metrics_listen = options.metrics_listen;
  setup.metrics_port_file = options.metrics_port_file;
  absl::StatusOr<otel::TracingOptions> tracing = TracingFromFlags(options);
  if (!tracing.ok()) return tracing.status();
  setup.tracing = *std::move(tracing);

  absl::StatusOr<std::filesystem::path> workspace_root = WorkspaceRoot(options);
  if (!workspace_root.ok()) return workspace_root.status();
  CommandAgentOptions agent_options;
  agent_options.workdir = *workspace_root;
  // `taskboard` is installed next to taskboard-worker (build/bin, images):
  // agents find it first on their PATH.
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) agent_options.bin_dir = self.parent_path();
  absl::StatusOr<std::unique_ptr<ToolRegistry>> tools = LoadToolRegistry(options.tools_dir);
  if (!tools.ok()) return tools.status();
  setup.tools = *std::move(tools);
  absl::StatusOr<std::unique_ptr<AgentRegistry>> agents =
      AgentRegistry::Load(options.agents_dir, agent_options);
  if (!agents.ok()) return agents.status();
  setup.agents = *std::move(agents);
  if (absl::Status confined = ConfineAgentProcesses(setup); !confined.ok()) return confined;

  SessionOptions& session = setup.session;
  session.scheduler_address = options.scheduler;
  session.worker_id = options.worker_id.empty() ? DefaultWorkerId() : options.worker_id;
  session.slots = options.slots;
  const PrefetchSetting prefetch = ResolvePrefetch(options);
  session.prefetch = prefetch.prefetch;
  session.max_prefetch = prefetch.max_prefetch;
  setup.prefetch_label = prefetch.label;
  session.version = kWorkerVersion;
  session.drain_grace = absl::Seconds(options.drain_grace_seconds);
  session.keepalive_time = absl::Milliseconds(options.keepalive_time_ms);
  session.keepalive_timeout = absl::Milliseconds(options.keepalive_timeout_ms);
  session.tools = setup.tools.get();
  if (workspace_root->empty()) {
    absl::StatusOr<TaskWorkspaces> per_task =
        TaskWorkspaces::PerTask(options.data_dir, session.worker_id);
    if (!per_task.ok()) return per_task.status();
    session.workspaces = *std::move(per_task);
  } else {
    session.workspaces = TaskWorkspaces::Shared(*workspace_root);
  }
  session.token = options.token;
  session.credentials = *std::move(credentials);
  session.trace_capture_content = options.trace_capture_content;
  return setup;
}

}  // namespace taskboard::worker
