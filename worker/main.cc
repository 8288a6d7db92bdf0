// `taskboard-worker`: runs agent tasks for a Taskboard scheduler. It loads
// the agents of --agents, connects to --scheduler, and serves until SIGTERM
// or SIGINT (or the scheduler's Drain), finishing or returning its running
// tasks within the drain grace period. Every flag has a TASKBOARD_*
// environment variable; see --help. With --metrics-listen it also serves
// /metrics, /healthz and /readyz (docs/services.md). Logs are JSON lines on
// stderr (--log-level, --log-format; docs/services.md#logs); usage errors
// (bad flags, agent or tool files) are plain "taskboard-worker: ..." lines
// and exit code 2. --token and --tls-* authenticate it to a scheduler that
// requires it (docs/security.md).

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <thread>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/json_depth_flag.h"
#include "common/log/grpc_log.h"
#include "common/log/log.h"
#include "common/log/log_flags.h"
#include "common/metrics/metrics_http.h"
#include "common/metrics/registry.h"
#include "common/tls/tls_credentials.h"
#include "worker/agents/agent_registry.h"
#include "worker/base/inherited_children.h"
#include "worker/base/secret_environment.h"
#include "worker/base/subprocess.h"
#include "worker/base/task_cgroup.h"
#include "worker/session/session.h"
#include "worker/session/worker_metrics.h"
#include "worker/tools/tool_registry.h"

namespace {

constexpr char kVersion[] = "0.1.0";

// Where per-task directories go unless --data-dir says: the user's state
// directory (XDG), not a fixed name in /tmp another user could create first.
std::string DefaultDataDir() {
  if (const char* state = getenv("XDG_STATE_HOME"); state != nullptr && state[0] == '/') {
    return absl::StrCat(state, "/taskboard/worker");
  }
  if (const char* home = getenv("HOME"); home != nullptr && home[0] != '\0') {
    return absl::StrCat(home, "/.local/state/taskboard/worker");
  }
  return absl::StrCat("/var/tmp/taskboard-worker-", getuid());
}

std::string DefaultWorkerId() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return absl::StrCat(host[0] != '\0' ? host : "worker", "-", getpid());
}

// Turns SIGTERM/SIGINT into a drain (a repeated signal keeps the first
// deadline). The signals must be blocked in every thread, so the constructor
// runs before any other thread starts.
class SignalDrain {
 public:
  SignalDrain() {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGTERM);
    sigaddset(&signals_, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
  }

  void Start(taskboard::worker::Session* session, absl::Duration grace) {
    thread_ = std::thread([this, session, grace] {
      const timespec poll_interval = {0, 200 * 1000 * 1000};
      while (!stop_.load()) {
        const int signal = sigtimedwait(&signals_, nullptr, &poll_interval);
        if (signal > 0)
          session->Drain(grace, absl::StrCat("received ", taskboard::worker::SignalName(signal)));
      }
    });
  }

  void Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }

 private:
  sigset_t signals_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  namespace log = taskboard::log;  // here: at file scope it would clash with ::log from <cmath>
  // Writes to closed pipes and sockets must fail, not kill the worker; agents
  // get the default disposition back (see worker/base/subprocess.cc).
  signal(SIGPIPE, SIG_IGN);
  SignalDrain signal_drain;

  CLI::App app{"taskboard-worker: runs Taskboard agent tasks for a scheduler"};
  app.set_version_flag("--version", absl::StrCat("taskboard-worker ", kVersion));
  std::string scheduler = "127.0.0.1:7233";
  std::string agents_dir;
  int slots = 4;
  std::string prefetch = "auto";
  int prefetch_max = 64;
  std::string worker_id;
  int drain_grace_seconds = 30;
  int64_t keepalive_time_ms = 10'000;
  int64_t keepalive_timeout_ms = 10'000;
  std::string workdir;
  std::string data_dir = DefaultDataDir();
  std::string tools_dir;
  std::string metrics_listen;
  std::string metrics_port_file;
  log::LogFlags log_flags;
  std::string token;
  taskboard::tls::ClientTlsFlags tls_flags;
  app.add_option("--scheduler", scheduler, "Scheduler gRPC address (host:port)")
      ->envname("TASKBOARD_SCHEDULER")
      ->capture_default_str();
  app.add_option("--agents", agents_dir,
                 "Directory of agent files (*.json, *.yaml, *.yml, *.md); the built-in noop "
                 "agent is always offered")
      ->envname("TASKBOARD_AGENTS_DIR");
  app.add_option("--slots", slots, "Tasks run at the same time")
      ->envname("TASKBOARD_SLOTS")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  app.add_option("--prefetch", prefetch,
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
  app.add_option("--prefetch-max", prefetch_max,
                 "The most assignments --prefetch auto queues ahead of the slots")
      ->envname("TASKBOARD_PREFETCH_MAX")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  app.add_option("--worker-id", worker_id, "Stable id of this worker (default: hostname-pid)")
      ->envname("TASKBOARD_WORKER_ID");
  app.add_option("--drain-grace-seconds", drain_grace_seconds,
                 "On SIGTERM/SIGINT, how long running tasks may finish before they are "
                 "cancelled and returned")
      ->envname("TASKBOARD_DRAIN_GRACE_SECONDS")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--keepalive-time-ms", keepalive_time_ms,
                 "Ping the scheduler after this much silence on the stream; a ping unanswered "
                 "within --keepalive-timeout-ms ends the stream and the worker reconnects")
      ->envname("TASKBOARD_KEEPALIVE_TIME_MS")
      ->check(CLI::Range(int64_t{1'000}, int64_t{INT32_MAX}))
      ->capture_default_str();
  app.add_option("--keepalive-timeout-ms", keepalive_timeout_ms,
                 "How long a keepalive ping may go unanswered")
      ->envname("TASKBOARD_KEEPALIVE_TIMEOUT_MS")
      ->check(CLI::Range(int64_t{100}, int64_t{INT32_MAX}))
      ->capture_default_str();
  app.add_option("--workspace-root,--workdir", workdir,
                 "One directory every task works in (a checkout the agents share): a phase's cwd "
                 "is relative to it and may not leave it. Default: none, each task gets a fresh "
                 "empty directory under --data-dir, removed when it ends (--workdir is the old "
                 "name)")
      ->envname("TASKBOARD_WORKSPACE_ROOT");
  app.add_option("--data-dir", data_dir,
                 "Without --workspace-root: where the per-task directories are made, in "
                 "<data-dir>/<worker-id>/<lease-id> (mode 0700; default: "
                 "$XDG_STATE_HOME/taskboard/worker, else ~/.local/state/taskboard/worker)")
      ->envname("TASKBOARD_WORKER_DATA_DIR");
  app.add_option("--tools", tools_dir,
                 "Directory of tool files (*.json, *.yaml, *.yml) that agents may call besides "
                 "the built-in read_file and list_files")
      ->envname("TASKBOARD_TOOLS");
  app.add_option("--metrics-listen", metrics_listen,
                 "Serve Prometheus /metrics, /healthz and /readyz over HTTP on HOST:PORT "
                 "(port 0: any free port; empty: off)")
      ->envname("TASKBOARD_METRICS_LISTEN");
  app.add_option("--metrics-port-file", metrics_port_file,
                 "With --metrics-listen: write the metrics port chosen to this file")
      ->envname("TASKBOARD_METRICS_PORT_FILE");
  app.add_option("--token", token,
                 "Bearer token (role worker) for a scheduler started with --auth-tokens")
      ->envname("TASKBOARD_TOKEN");
  app.add_option("--tls-ca", tls_flags.ca,
                 "Connect over TLS, trusting the scheduler certificate signed by this CA (PEM)")
      ->envname("TASKBOARD_TLS_CA");
  app.add_option("--tls-cert", tls_flags.cert, "With --tls-ca: client certificate for mTLS (PEM)")
      ->envname("TASKBOARD_TLS_CERT");
  app.add_option("--tls-key", tls_flags.key, "The private key of --tls-cert (PEM)")
      ->envname("TASKBOARD_TLS_KEY");
  log::AddLogFlags(app, &log_flags);
  taskboard::AddJsonDepthFlag(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (absl::Status logging = log::ConfigureFromFlags(log_flags, "worker"); !logging.ok()) {
    std::cerr << "taskboard-worker: " << logging.message() << "\n";
    return 2;
  }
  log::RouteGrpcLogs();
  // Agents run as this user: the worker token (which receives every
  // tenant's tasks) and the default LLM key leave the environment, and the
  // process cannot be read by them (secret_environment.h). llm agents take
  // their own apiKeyEnv as they load.
  taskboard::worker::TakeSecretFromEnvironment("TASKBOARD_TOKEN");
  taskboard::worker::TakeSecretFromEnvironment("OPENAI_API_KEY");
  if (!taskboard::worker::MakeProcessNonDumpable()) {
    log::Warn(
        "could not make the worker non-dumpable: agents running as its user may read its memory");
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      taskboard::tls::ChannelCredentials(tls_flags);
  if (!credentials.ok()) {
    std::cerr << "taskboard-worker: " << credentials.status().message() << "\n";
    return 2;
  }

  taskboard::metrics::MetricsHttpOptions http_options;
  if (absl::Status flags =
          taskboard::metrics::CheckMetricsFlags(metrics_listen, metrics_port_file, http_options);
      !flags.ok()) {
    std::cerr << "taskboard-worker: " << flags.message() << "\n";
    return 2;
  }

  // TASKBOARD_WORKDIR: the variable of --workdir, the old name.
  if (const char* old_variable = getenv("TASKBOARD_WORKDIR");
      workdir.empty() && old_variable != nullptr) {
    workdir = old_variable;
  }
  std::error_code ec;
  if (!workdir.empty() && !std::filesystem::is_directory(workdir, ec)) {
    std::cerr << "taskboard-worker: --workspace-root '" << workdir
              << "' is not a directory: create it, or point the flag at an existing one\n";
    return 2;
  }
  taskboard::worker::CommandAgentOptions agent_options;
  if (!workdir.empty()) agent_options.workdir = std::filesystem::absolute(workdir);
  // `taskboard` is installed next to taskboard-worker (build/bin, images):
  // agents find it first on their PATH.
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) agent_options.bin_dir = self.parent_path();
  absl::StatusOr<std::unique_ptr<taskboard::worker::ToolRegistry>> tools =
      taskboard::worker::LoadToolRegistry(tools_dir);
  if (!tools.ok()) {
    std::cerr << "taskboard-worker: " << tools.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<std::unique_ptr<taskboard::worker::AgentRegistry>> agents =
      taskboard::worker::AgentRegistry::Load(agents_dir, agent_options);
  if (!agents.ok()) {
    std::cerr << "taskboard-worker: " << agents.status().message() << "\n";
    return 2;
  }

  // Everything an agent or command tool starts ends with its task
  // (docs/security.md#agent-confinement): each runs under taskboard-reaper,
  // in a cgroup of its own where the worker has a delegated one, and the
  // worker ends whatever a killed reaper leaves to it.
  if (absl::StatusOr<std::string> reaper = taskboard::worker::FindReaper(); !reaper.ok()) {
    std::cerr << "taskboard-worker: " << reaper.status().message() << "\n";
    return 2;
  }
  if (absl::Status subreaper = taskboard::worker::BecomeChildSubreaper(); !subreaper.ok()) {
    std::cerr << "taskboard-worker: " << subreaper.message() << "\n";
    return 2;
  }
  const absl::StatusOr<std::filesystem::path> task_cgroups = taskboard::worker::DelegatedCgroup();
  if (task_cgroups.ok()) taskboard::worker::SetDefaultTaskCgroupParent(*task_cgroups);

  taskboard::worker::SessionOptions options;
  options.scheduler_address = scheduler;
  options.worker_id = worker_id.empty() ? DefaultWorkerId() : worker_id;
  options.slots = slots;
  if (prefetch == "auto") {
    options.prefetch = slots;
    options.max_prefetch = std::max(slots, prefetch_max);
  } else {
    (void)absl::SimpleAtoi(prefetch, &options.prefetch);  // checked by the flag
  }
  options.version = kVersion;
  options.drain_grace = absl::Seconds(drain_grace_seconds);
  options.keepalive_time = absl::Milliseconds(keepalive_time_ms);
  options.keepalive_timeout = absl::Milliseconds(keepalive_timeout_ms);
  options.tools = tools->get();
  if (workdir.empty()) {
    absl::StatusOr<taskboard::worker::TaskWorkspaces> per_task =
        taskboard::worker::TaskWorkspaces::PerTask(data_dir, options.worker_id);
    if (!per_task.ok()) {
      std::cerr << "taskboard-worker: " << per_task.status().message() << "\n";
      return 2;
    }
    options.workspaces = *std::move(per_task);
  } else {
    options.workspaces = taskboard::worker::TaskWorkspaces::Shared(agent_options.workdir);
  }
  options.token = token;
  options.credentials = *std::move(credentials);
  // Metrics are kept even without --metrics-listen: the hooks are cheap and
  // the session stays the same either way.
  taskboard::metrics::Registry registry;
  taskboard::worker::WorkerMetrics metrics(registry);
  options.metrics = &metrics;

  for (const auto& [name, status] : (*agents)->unavailable()) {
    log::Warn("agent not offered")
        .With("worker_id", options.worker_id)
        .With("agent", name)
        .With("error", status.message());
  }
  taskboard::Json names = taskboard::Json::array();
  for (const taskboard::v1::AgentInfo& info : (*agents)->Advertised()) names.push_back(info.name());
  log::Info("worker starting")
      .With("worker_id", options.worker_id)
      .With("scheduler", scheduler)
      .With("slots", slots)
      .With("prefetch", prefetch == "auto" ? absl::StrCat("auto (", options.prefetch, " to ",
                                                          options.max_prefetch, ")")
                                           : prefetch)
      .With("agents", names)
      .With(options.workspaces.per_task() ? "task_directories" : "workspace_root",
            options.workspaces.root().string())
      .With("task_cgroups", task_cgroups.ok()
                                ? task_cgroups->string()
                                : absl::StrCat("none (", task_cgroups.status().message(),
                                               "); the per-task reapers end agents' processes"));

  taskboard::worker::Session session(options, **agents);
  std::unique_ptr<taskboard::metrics::MetricsHttpServer> http;
  if (!metrics_listen.empty()) {
    http_options.readiness = [&session] { return session.Readiness(); };
    absl::StatusOr<std::unique_ptr<taskboard::metrics::MetricsHttpServer>> started =
        taskboard::metrics::ServeMetrics(&registry, std::move(http_options), metrics_port_file);
    if (!started.ok()) {
      log::Fatal("cannot serve metrics")
          .With("worker_id", options.worker_id)
          .With("listen", metrics_listen)
          .With("error", started.status().message());
      return 1;
    }
    http = *std::move(started);
    log::Info("serving metrics")
        .With("worker_id", options.worker_id)
        .With("listen", metrics_listen)
        .With("port", http->port());
  }
  signal_drain.Start(&session, options.drain_grace);
  const absl::Status status = session.Run();
  signal_drain.Stop();
  if (http != nullptr) http->Shutdown();
  if (!status.ok()) {
    log::Fatal("worker stopped on an error")
        .With("worker_id", options.worker_id)
        .With("error", status.message());
    return 1;
  }
  return 0;
}
