#include "tests/testing/cluster.h"

#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/flow/proto_value.h"
#include "tests/testing/test_channel.h"

namespace taskboard::testing {
namespace {

using Clock = std::chrono::steady_clock;

std::string Tail(const std::string& text, size_t max = 4000) {
  return text.size() <= max ? text : text.substr(text.size() - max);
}

}  // namespace

std::string BinaryPath(const std::string& name) {
  return absl::StrCat(TASKBOARD_BIN_DIR, "/", name);
}

std::string SourcePath(const std::string& relative) {
  return absl::StrCat(TASKBOARD_SOURCE_DIR, "/", relative);
}

Exited RunToExit(const std::string& binary, const std::vector<std::string>& args,
                 const std::map<std::string, std::string>& env) {
  TempDir dir;
  const std::string log = (dir.path() / "out.log").string();
  std::vector<std::string> argv = {BinaryPath(binary)};
  argv.insert(argv.end(), args.begin(), args.end());
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Spawn(argv, log, env);
  if (!child.ok()) return {std::nullopt, std::string(child.status().message())};
  Exited exited;
  exited.code = (*child)->WaitFor(10'000);
  exited.output = ReadFileOrEmpty(log);
  return exited;
}

Cluster::Cluster(ClusterOptions options) : options_(std::move(options)) {
  if (options_.agents_dir.empty()) options_.agents_dir = SourcePath("tests/integration/agents");
  workers_.resize(options_.workers);
}

Cluster::~Cluster() {
  for (auto& worker : workers_) worker.reset();
  scheduler_.reset();
}

absl::Status Cluster::Start() {
  if (absl::Status started = StartScheduler(); !started.ok()) return started;
  for (int i = 0; i < options_.workers; ++i) {
    if (absl::Status started = StartWorker(i); !started.ok()) return started;
  }
  return absl::OkStatus();
}

absl::Status Cluster::StartScheduler() {
  std::string port_file = (dir_.path() / "scheduler.port").string();
  std::filesystem::remove(port_file);
  std::vector<std::string> argv = {BinaryPath("taskboard-scheduler"),
                                   "--listen",
                                   absl::StrCat("127.0.0.1:", port_),
                                   "--data-dir",
                                   (dir_.path() / "data").string(),
                                   "--durability",
                                   options_.durability,
                                   "--port-file",
                                   port_file,
                                   "--lease-timeout-ms",
                                   absl::StrCat(options_.lease_timeout_ms),
                                   "--heartbeat-interval-ms",
                                   absl::StrCat(options_.heartbeat_interval_ms),
                                   "--scheduling-timeout-ms",
                                   absl::StrCat(options_.scheduling_timeout_ms),
                                   "--retry-base-ms",
                                   absl::StrCat(options_.retry_base_ms),
                                   "--retry-max-ms",
                                   "1000"};
  argv.insert(argv.end(), options_.scheduler_flags.begin(), options_.scheduler_flags.end());
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Spawn(argv, (dir_.path() / "scheduler.log").string());
  if (!child.ok()) return child.status();
  scheduler_ = *std::move(child);
  absl::StatusOr<int> port = WaitForPortFile(*scheduler_, port_file, 30'000);
  if (!port.ok()) {
    return absl::UnavailableError(
        absl::StrCat("the scheduler did not start (", port.status().message(), "):\n", Logs()));
  }
  port_ = *port;
  address_ = absl::StrCat("127.0.0.1:", port_);
  client_ = v1::Scheduler::NewStub(
      TestChannel(address_, options_.client_token, options_.client_credentials));
  return absl::OkStatus();
}

void Cluster::KillScheduler(int sig) {
  if (scheduler_ == nullptr) return;
  scheduler_->Signal(sig);
  scheduler_->WaitFor(30'000);
}

absl::Status Cluster::StartWorker(int index) {
  std::vector<std::string> argv = {BinaryPath("taskboard-worker"),
                                   "--scheduler",
                                   address_,
                                   "--agents",
                                   options_.agents_dir,
                                   "--slots",
                                   absl::StrCat(options_.slots),
                                   "--worker-id",
                                   absl::StrCat("worker-", index),
                                   "--drain-grace-seconds",
                                   "5"};
  if (options_.shared_workspace) {
    argv.insert(argv.end(), {"--workspace-root", dir_.path().string()});
  } else {
    argv.insert(argv.end(), {"--data-dir", (dir_.path() / "worker-data").string()});
  }
  argv.insert(argv.end(), options_.worker_flags.begin(), options_.worker_flags.end());
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Spawn(argv, (dir_.path() / absl::StrCat("worker-", index, ".log")).string());
  if (!child.ok()) return child.status();
  workers_.at(index) = *std::move(child);
  return absl::OkStatus();
}

void Cluster::KillWorker(int index, int sig) {
  ChildProcess* worker = workers_.at(index).get();
  if (worker == nullptr) return;
  if (sig == SIGKILL) {
    worker->KillGroup();
  } else {
    worker->Signal(sig);
    worker->WaitFor(30'000);
  }
}

absl::StatusOr<std::string> Cluster::Submit(const std::string& flow_text, const Json& args,
                                            const std::string& session_id) {
  v1::SubmitRunRequest request;
  request.mutable_source()->set_text(flow_text);
  request.set_session_id(session_id);
  *request.mutable_args() = flow::JsonToProtoValue(args).struct_value();
  v1::SubmitRunResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  context.set_wait_for_ready(true);
  grpc::Status status = client_->SubmitRun(&context, request, &response);
  if (!status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
  }
  return response.run_id();
}

absl::StatusOr<std::vector<v1::Observation>> Cluster::ToolCalls(const std::string& run_id,
                                                                const std::string& task_id) {
  v1::GetTaskRequest request;
  request.set_run_id(run_id);
  request.set_task_id(task_id);
  v1::GetTaskResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  grpc::Status status = client_->GetTask(&context, request, &response);
  if (!status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
  }
  return std::vector<v1::Observation>(response.tool_calls().begin(), response.tool_calls().end());
}

absl::StatusOr<v1::Run> Cluster::GetRun(const std::string& run_id, bool without_tasks) {
  v1::GetRunRequest request;
  request.set_run_id(run_id);
  request.set_without_tasks(without_tasks);
  v1::GetRunResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  grpc::Status status = client_->GetRun(&context, request, &response);
  if (!status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
  }
  return std::move(*response.mutable_run());
}

absl::StatusOr<v1::Run> Cluster::WaitUntil(const std::string& run_id,
                                           const std::function<bool(const v1::Run&)>& predicate,
                                           int timeout_ms) {
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  v1::Run last;
  while (Clock::now() < deadline) {
    absl::StatusOr<v1::Run> run = GetRun(run_id);
    if (run.ok()) {
      last = *std::move(run);
      if (predicate(last)) return last;
    } else if (run.status().code() != absl::StatusCode::kUnavailable &&
               run.status().code() != absl::StatusCode::kDeadlineExceeded) {
      return run.status();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return absl::DeadlineExceededError(absl::StrCat("run ", run_id,
                                                  " did not reach the expected "
                                                  "state; last status ",
                                                  v1::RunStatus_Name(last.status()), "\n", Logs()));
}

absl::StatusOr<v1::Run> Cluster::WaitForRun(const std::string& run_id, int timeout_ms) {
  return WaitUntil(
      run_id, [](const v1::Run& run) { return engine::IsTerminal(run.status()); }, timeout_ms);
}

absl::StatusOr<std::vector<v1::RunEvent>> Cluster::WatchToEnd(const std::string& run_id,
                                                              int timeout_ms) {
  v1::WatchRunRequest request;
  request.set_run_id(run_id);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
  auto reader = client_->WatchRun(&context, request);
  std::vector<v1::RunEvent> events;
  v1::WatchRunResponse response;
  while (reader->Read(&response)) events.push_back(response.event());
  grpc::Status status = reader->Finish();
  if (!status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                        absl::StrCat(status.error_message(), "\n", Logs()));
  }
  return events;
}

absl::StatusOr<v1::ListWorkersResponse> Cluster::WaitForWorkers(
    const std::function<bool(const v1::ListWorkersResponse&)>& predicate, int timeout_ms) {
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  v1::ListWorkersResponse last;
  while (Clock::now() < deadline) {
    v1::ListWorkersResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    if (client_->ListWorkers(&context, {}, &response).ok()) {
      last = std::move(response);
      if (predicate(last)) return last;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return absl::DeadlineExceededError(
      absl::StrCat("the connected workers did not reach the expected state; last answer: ",
                   last.ShortDebugString(), "\n", Logs()));
}

std::string Cluster::Logs() const {
  std::string logs;
  absl::StrAppend(&logs, "--- scheduler.log\n",
                  Tail(ReadFileOrEmpty((dir_.path() / "scheduler.log").string())));
  for (size_t i = 0; i < workers_.size(); ++i) {
    absl::StrAppend(
        &logs, "\n--- worker-", i, ".log\n",
        Tail(ReadFileOrEmpty((dir_.path() / absl::StrCat("worker-", i, ".log")).string())));
  }
  return logs;
}

}  // namespace taskboard::testing
