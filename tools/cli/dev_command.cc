#include "tools/cli/dev_command.h"

#include <openssl/rand.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/child_process.h"
#include "common/files.h"
#include "tools/cli/scheduler_client.h"

namespace taskboard::cli {
namespace {

namespace fs = std::filesystem;

volatile sig_atomic_t stop_requested = 0;
void RequestStop(int) { stop_requested = 1; }

// A token for this session's console link: 32 random bytes, as hex.
std::string NewConsoleToken() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return "";
  std::string token;
  for (const unsigned char byte : bytes) absl::StrAppend(&token, absl::Hex(byte, absl::kZeroPad2));
  return token;
}

// Waits until `worker_id` is connected to the scheduler at `address`, so
// that a flow submitted the moment dev says it is up finds its agents.
absl::Status WaitForWorker(const std::string& address, const std::string& worker_id,
                           ChildProcess& worker, absl::Duration timeout) {
  SchedulerClient client(address);
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline && stop_requested == 0) {
    if (!worker.Running()) return absl::UnavailableError("the worker exited");
    v1::ListWorkersResponse workers;
    std::unique_ptr<grpc::ClientContext> context = client.CallContext();
    // One attempt per poll, on the one local scheduler: this loop has its
    // own deadline.
    v1::Scheduler::Stub stub(client.channel());
    if (stub.ListWorkers(context.get(), v1::ListWorkersRequest(), &workers).ok()) {
      for (const v1::WorkerInfo& info : workers.workers()) {
        if (info.worker_id() == worker_id) return absl::OkStatus();
      }
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  return absl::DeadlineExceededError(
      absl::StrCat("the worker did not connect within ", absl::FormatDuration(timeout)));
}

// taskboard-scheduler and taskboard-worker are installed next to taskboard.
std::string SiblingBinary(const std::string& name) {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? name : (self.parent_path() / name).string();
}

}  // namespace

void AddDevCommand(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<DevOptions>();
  CLI::App* dev = app.add_subcommand(
      "dev", "Start a local scheduler and worker (data in --data-dir) until Ctrl-C");
  dev->add_option("--data-dir", options->data_dir, "Where the scheduler keeps its RocksDB and logs")
      ->envname("TASKBOARD_DATA_DIR")
      ->capture_default_str();
  dev->add_option("--listen", options->listen, "Scheduler address (port 0: any free port)")
      ->envname("TASKBOARD_LISTEN")
      ->capture_default_str();
  dev->add_option("--agents", options->agents_dir,
                  "Agents directory for the worker (default: ./agents if it exists)")
      ->envname("TASKBOARD_AGENTS_DIR");
  dev->add_option("--slots", options->slots, "Tasks the worker runs at once")
      ->envname("TASKBOARD_SLOTS")
      ->capture_default_str();
  dev->add_option("--workspace-root", options->workspace_root,
                  "The worker's --workspace-root: the directory every task works in (empty: a "
                  "fresh directory per task under <data-dir>/worker)")
      ->capture_default_str();
  dev->add_option("--durability", options->durability,
                  "sync | wal | none (the scheduler's --durability; see docs/services.md)")
      ->check(CLI::IsMember({"sync", "wal", "none"}))
      ->capture_default_str();
  dev->add_option("--ready-file", options->ready_file,
                  "Write the scheduler address here once everything is up");
  commands.Add(
      dev, [options](std::ostream& out, std::ostream& err) { return RunDev(*options, out, err); });
}

int RunDev(const DevOptions& options, std::ostream& out, std::ostream& err) {
  std::error_code error;
  fs::create_directories(options.data_dir, error);
  if (error) {
    err << "taskboard dev: cannot create " << options.data_dir << ": " << error.message() << "\n";
    return 1;
  }
  fs::path dir = fs::absolute(options.data_dir);
  std::string port_file = (dir / "scheduler.port").string();
  std::string http_port_file = (dir / "scheduler.http.port").string();
  std::string console_token_file = (dir / "console.token").string();
  fs::remove(port_file, error);
  fs::remove(http_port_file, error);
  // The console's API takes this session's token only, so that no other web
  // page the developer visits can drive these agents.
  const std::string console_token = NewConsoleToken();
  if (console_token.empty() ||
      !WriteFileAtomically(console_token_file, console_token + "\n", 0600)) {
    err << "taskboard dev: cannot write the console token to " << console_token_file << "\n";
    return 1;
  }
  std::string scheduler_log = (dir / "scheduler.log").string();
  std::string worker_log = (dir / "worker.log").string();

  signal(SIGINT, RequestStop);
  signal(SIGTERM, RequestStop);

  absl::StatusOr<std::unique_ptr<ChildProcess>> scheduler = ChildProcess::Spawn(
      {SiblingBinary("taskboard-scheduler"), "--listen", options.listen, "--data-dir",
       (dir / "data").string(), "--durability", options.durability, "--port-file", port_file,
       // The web console and the HTTP API, on loopback only, for this
       // session's console link.
       "--http-listen", "127.0.0.1:0", "--http-port-file", http_port_file,
       "--http-console-token-file", console_token_file},
      scheduler_log);
  if (!scheduler.ok()) {
    err << "taskboard dev: " << scheduler.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<int> port =
      WaitForPortFile(**scheduler, port_file, 30'000, [] { return stop_requested != 0; });
  if (!port.ok()) {
    err << "taskboard dev: the scheduler did not start (" << port.status().message() << "); see "
        << scheduler_log << ":\n"
        << ReadFileOrEmpty(scheduler_log);
    return 1;
  }
  std::string address = absl::StrCat("127.0.0.1:", *port);
  // Written before the gRPC port file, so it is there now.
  const std::string http_port(absl::StripAsciiWhitespace(ReadFileOrEmpty(http_port_file)));
  const std::string console =
      http_port.empty() ? std::string("(not served)")
                        : absl::StrCat("http://127.0.0.1:", http_port, "/#token=", console_token);

  std::string agents = options.agents_dir;
  if (agents.empty() && fs::is_directory("agents")) agents = "agents";
  std::vector<std::string> worker_argv = {
      SiblingBinary("taskboard-worker"), "--scheduler", address,      "--slots",
      absl::StrCat(options.slots),       "--worker-id", "dev-worker", "--data-dir",
      (dir / "worker").string()};
  if (!options.workspace_root.empty()) {
    worker_argv.push_back("--workspace-root");
    worker_argv.push_back(fs::absolute(options.workspace_root).string());
  }
  if (!agents.empty()) {
    worker_argv.push_back("--agents");
    worker_argv.push_back(fs::absolute(agents).string());
  }
  absl::StatusOr<std::unique_ptr<ChildProcess>> worker =
      ChildProcess::Spawn(worker_argv, worker_log);
  if (!worker.ok()) {
    err << "taskboard dev: " << worker.status().message() << "\n";
    return 1;
  }

  if (absl::Status connected = WaitForWorker(address, "dev-worker", **worker, absl::Seconds(30));
      !connected.ok()) {
    if (stop_requested == 0) {
      err << "taskboard dev: " << connected.message() << "; see " << worker_log << ":\n"
          << ReadFileOrEmpty(worker_log);
    }
    (*worker)->Signal(SIGTERM);
    (*worker)->WaitFor(10'000);
    (*scheduler)->Signal(SIGTERM);
    (*scheduler)->WaitFor(10'000);
    return 1;
  }
  out << "Taskboard dev is up.\n"
      << "  scheduler  " << address << "  (data in " << (dir / "data").string() << ")\n"
      << "  worker     dev-worker, " << options.slots << " slots, agents from "
      << (agents.empty() ? std::string("(built-in noop only)") : agents) << "\n"
      << "  console    " << console << "\n"
      << "             (this session's link: the console's API takes its token only)\n"
      << "  logs       " << scheduler_log << ", " << worker_log << "\n\n"
      << "In another terminal:\n"
      << "  export TASKBOARD_SCHEDULER=" << address << "\n"
      << "  taskboard run examples/flows/repo-digest.yaml\n\n"
      << "Ctrl-C stops both." << std::endl;
  if (!options.ready_file.empty() && !WriteFileAtomically(options.ready_file, address + "\n")) {
    err << "taskboard dev: cannot write " << options.ready_file << "\n";
  }

  int status = 0;
  while (!stop_requested) {
    if (!(*scheduler)->Running() || !(*worker)->Running()) {
      err << "taskboard dev: a process exited unexpectedly; see " << scheduler_log << " and "
          << worker_log << "\n";
      status = 1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // The worker drains (finishes or hands back its tasks), then the scheduler
  // commits and closes its store.
  (*worker)->Signal(SIGTERM);
  (*worker)->WaitFor(35'000);
  (*scheduler)->Signal(SIGTERM);
  (*scheduler)->WaitFor(10'000);
  out << "Taskboard dev stopped." << std::endl;
  return status;
}

}  // namespace taskboard::cli
