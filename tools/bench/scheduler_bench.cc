// Scheduler throughput and dispatch latency (docs/performance.md).
//
// Each benchmark starts a real scheduler (RocksDB in a temp directory with
// the given durability, gRPC on a loopback port) and K in-process no-op
// workers that speak the WorkerGateway protocol over real gRPC streams, then
// submits one board of N independent no-op tasks and waits for the run to
// finish. Reported:
//   tasks_per_s       N / (submit -> run finished)
//   dispatch_p50/p99  ready -> assignment received by a worker (microseconds)
//   e2e_p50/p99       submit -> task committed completed (milliseconds)
//
//   build/bin/scheduler_bench --benchmark_filter=Board
//
// Args: {tasks N, workers K, durability 0=sync 1=wal 2=none, map 0=board 1=one map phase}.
//
// BM_PacedBoards is the open-loop variant: it submits boards of B tasks on a
// fixed schedule (rate R tasks/s for S seconds) whether or not earlier ones
// finished, so dispatch latency is measured below saturation instead of as
// queueing behind one huge board.
//
//   build/bin/scheduler_bench --benchmark_filter=Paced
//
// Args: {rate R tasks/s, board size B, workers K, durability, seconds S}.
//
// BM_RetentionSoak runs R runs of T no-op tasks each (8 in flight) on a
// scheduler with --retention of 2 s, and samples the process's RSS and the
// data directory's size: at the start, at each quarter of the runs, the
// peak, and the end (once retention has deleted every run). Retention is
// working when RSS and disk stop growing once runs are being deleted.
//
//   build/bin/scheduler_bench --benchmark_filter=Retention
//
// Args: {runs R, tasks per run T, workers K, durability}.
//
// BM_TracedBoard is BM_NoopBoard (wal, 4 workers) with the scheduler's
// tracing off, exporting every run's spans (ratio 1: a run span and one
// task.attempt span per task) to an in-process receiver answering 200, and
// pointed at a port that refuses connections (docs/observability.md#cost).
// Counters add the spans exported and dropped, from the exporter's counts.
//
//   build/bin/scheduler_bench --benchmark_filter=TracedBoard
//
// Args: {tasks N, tracing 0=off 1=live receiver 2=dead endpoint}.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "benchmark/benchmark.h"
#include "common/json.h"
#include "common/otel/tracing.h"
#include "grpcpp/create_channel.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/server/scheduler_server.h"
#include "taskboard/v1/scheduler.grpc.pb.h"
#include "taskboard/v1/worker.grpc.pb.h"
#include "tools/bench/otlp_endpoints.h"

namespace taskboard {
namespace {

int64_t NowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// GetRun of a 100,000-task run is about 20 MB, over gRPC's 4 MiB default.
grpc::ChannelArguments LargeReplies() {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(256 << 20);
  return args;
}

bool HasRunFinished(const v1::WatchRunResponse& response) {
  return !response.events().empty() && response.events().rbegin()->has_run_finished();
}

// A worker that completes every assignment at once, recording how long each
// waited between becoming ready and arriving here.
class NoopWorker {
 public:
  NoopWorker(const std::string& address, int index, int slots) {
    stub_ = v1::WorkerGateway::NewStub(
        grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
    stream_ = stub_->Connect(&context_);
    v1::ConnectRequest hello;
    hello.mutable_hello()->set_worker_id(absl::StrCat("bench-", index));
    hello.mutable_hello()->add_agents()->set_name("noop");
    hello.mutable_hello()->set_slots(slots);
    hello.mutable_hello()->set_accepts_batches(true);
    stream_->Write(hello);
    reader_ = std::thread([this] { Read(); });
  }

  ~NoopWorker() {
    context_.TryCancel();
    reader_.join();
  }

  std::vector<int64_t> TakeLatencies() {
    absl::MutexLock lock(&mu_);
    return std::move(latencies_us_);
  }

 private:
  void Read() {
    v1::ConnectResponse message;
    while (stream_->Read(&message)) {
      // Like the real worker: what arrives in one read is answered in one
      // write, results and the freed slots' credits together.
      v1::ConnectRequest reply;
      int64_t freed = 0;
      if (message.has_batch()) {
        for (const v1::ConnectResponse& inner : message.batch().messages()) {
          if (inner.has_assignment()) freed += Complete(inner.assignment(), reply);
        }
      } else if (message.has_assignment()) {
        freed += Complete(message.assignment(), reply);
      }
      if (freed == 0) continue;
      reply.mutable_batch()->add_messages()->mutable_credits()->set_slots(freed);
      stream_->Write(reply);
    }
  }

  int64_t Complete(const v1::Assignment& assignment, v1::ConnectRequest& reply) {
    int64_t ready_us =
        assignment.ready_at().seconds() * 1'000'000 + assignment.ready_at().nanos() / 1000;
    {
      absl::MutexLock lock(&mu_);
      latencies_us_.push_back(NowUs() - ready_us);
    }
    v1::TaskResult& result = *reply.mutable_batch()->add_messages()->mutable_task_result();
    result.set_task_id(assignment.task_id());
    result.set_lease_id(assignment.lease_id());
    result.set_success(true);
    result.set_output(assignment.prompt());
    return 1;
  }

  std::unique_ptr<v1::WorkerGateway::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::ConnectRequest, v1::ConnectResponse>> stream_;
  std::thread reader_;
  absl::Mutex mu_;
  std::vector<int64_t> latencies_us_;
};

double Percentile(std::vector<int64_t> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t index = std::min(values.size() - 1, static_cast<size_t>(p * values.size()));
  return static_cast<double>(values[index]);
}

// A taskflow whose one map phase fans out over `items` literal items.
std::string MapFlow(int items) {
  Json list = Json::array();
  for (int i = 0; i < items; ++i) list.push_back(i);
  return DumpJson({{"name", "bench-map"},
                   {"phases",
                    {{{"id", "each"},
                      {"type", "map"},
                      {"agent", "noop"},
                      {"over", DumpJson(list)},
                      {"concurrency", 64},
                      {"task", "x {item}"}}}}});
}

std::string BoardFlow(int tasks) {
  Json list = Json::array();
  for (int i = 0; i < tasks; ++i) {
    list.push_back({{"id", absl::StrCat("t", i)}, {"agent", "noop"}, {"task", "x"}});
  }
  return DumpJson({{"name", "bench-board"}, {"kind", "board"}, {"board", {{"tasks", list}}}});
}

// A scheduler on RocksDB in a temp directory plus K no-op workers; torn down
// (workers first, then the server, then the directory) on destruction.
struct BenchCluster {
  std::filesystem::path dir;
  server::SchedulerServerOptions options;
  std::unique_ptr<server::SchedulerServer> server;
  std::vector<std::unique_ptr<NoopWorker>> workers;
  std::unique_ptr<v1::Scheduler::Stub> client;

  absl::Status Start(store::Durability durability, int max_tasks_per_run, int worker_count,
                     int64_t retention_ms = 0, const otel::Tracer* tracer = nullptr) {
    dir = std::filesystem::temp_directory_path() / absl::StrCat("taskboard-bench-", ::getpid());
    std::filesystem::remove_all(dir);
    options = server::SchedulerServerOptions();
    options.listen_address = "127.0.0.1:0";
    options.data_dir = dir.string();
    options.durability = durability;
    options.limits.max_tasks_per_run = max_tasks_per_run;
    options.engine.limits.max_items_per_phase = max_tasks_per_run;
    options.limits.max_spec_bytes = 64 << 20;
    options.engine.retention_ms = retention_ms;
    options.engine.tracer = tracer;
    auto created = server::SchedulerServer::Create(options);
    if (!created.ok()) return created.status();
    server = std::move(*created);
    std::string address = absl::StrCat("127.0.0.1:", server->port());
    for (int i = 0; i < worker_count; ++i) {
      workers.push_back(std::make_unique<NoopWorker>(address, i, 64));
    }
    client = v1::Scheduler::NewStub(
        grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), LargeReplies()));
    return absl::OkStatus();
  }

  // Stops the scheduler and starts a new one on the same data directory;
  // returns once it serves (recovery included). No workers reconnect. With
  // `stopped`, the time the old scheduler took to stop and free its state
  // is recorded there (a new process does not wait for it).
  absl::Status Restart(std::chrono::steady_clock::duration* stopped = nullptr) {
    const auto stopping = std::chrono::steady_clock::now();
    workers.clear();
    client.reset();
    server->Shutdown();
    server.reset();
    if (stopped != nullptr) *stopped = std::chrono::steady_clock::now() - stopping;
    auto created = server::SchedulerServer::Create(options);
    if (!created.ok()) return created.status();
    server = std::move(*created);
    client = v1::Scheduler::NewStub(
        grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", server->port()),
                                  grpc::InsecureChannelCredentials(), LargeReplies()));
    return absl::OkStatus();
  }

  // SubmitRun of `flow` (its text); the run id.
  absl::StatusOr<std::string> Submit(const std::string& flow) {
    v1::SubmitRunRequest request;
    request.mutable_source()->set_text(flow);
    v1::SubmitRunResponse response;
    grpc::ClientContext context;
    grpc::Status status = client->SubmitRun(&context, request, &response);
    if (!status.ok()) return absl::UnknownError(status.error_message());
    return response.run_id();
  }

  std::vector<int64_t> TakeDispatchLatencies() {
    std::vector<int64_t> all;
    for (auto& worker : workers) {
      std::vector<int64_t> latencies = worker->TakeLatencies();
      all.insert(all.end(), latencies.begin(), latencies.end());
    }
    return all;
  }

  ~BenchCluster() {
    workers.clear();
    if (server != nullptr) server->Shutdown();
    server.reset();
    if (!dir.empty()) std::filesystem::remove_all(dir);
  }
};

// One run of `flow` (N tasks) on a fresh cluster, timed from submit to
// run_finished, with its counters; `tracer` as the engine's (null: none).
void RunBoard(benchmark::State& state, const std::string& flow, int tasks, int workers,
              store::Durability durability, const otel::Tracer* tracer) {
  {
    BenchCluster cluster;
    if (absl::Status started = cluster.Start(durability, tasks, workers, 0, tracer);
        !started.ok()) {
      state.SkipWithError(std::string(started.message()).c_str());
      return;
    }
    auto& client = cluster.client;
    v1::SubmitRunRequest request;
    request.mutable_source()->set_text(flow);
    v1::SubmitRunResponse response;
    auto start = std::chrono::steady_clock::now();
    int64_t submit_ms = NowUs() / 1000;
    {
      grpc::ClientContext context;
      grpc::Status status = client->SubmitRun(&context, request, &response);
      if (!status.ok()) {
        state.SkipWithError(status.error_message().c_str());
        return;
      }
    }
    // Tail the run's events until it finishes (no polling delay).
    {
      v1::WatchRunRequest watch;
      watch.set_run_id(response.run_id());
      watch.set_max_events_per_message(1000);
      grpc::ClientContext context;
      auto reader = client->WatchRun(&context, watch);
      v1::WatchRunResponse event;
      while (reader->Read(&event) && !HasRunFinished(event)) {
      }
      context.TryCancel();
      reader->Finish();
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(seconds);

    v1::GetRunRequest get;
    get.set_run_id(response.run_id());
    v1::GetRunResponse run;
    grpc::ClientContext context;
    client->GetRun(&context, get, &run);
    std::vector<int64_t> e2e_ms;
    for (const v1::Task& task : run.run().tasks()) {
      e2e_ms.push_back(engine::ToUnixMs(task.finished_at()) - submit_ms);
    }
    std::vector<int64_t> dispatch_us = cluster.TakeDispatchLatencies();
    state.counters["tasks_per_s"] = tasks / seconds;
    state.counters["dispatch_p50_us"] = Percentile(dispatch_us, 0.50);
    state.counters["dispatch_p99_us"] = Percentile(dispatch_us, 0.99);
    state.counters["e2e_p50_ms"] = Percentile(e2e_ms, 0.50);
    state.counters["e2e_p99_ms"] = Percentile(e2e_ms, 0.99);
    state.counters["completed"] = static_cast<double>(run.run().tasks_done());
  }
}

void BM_NoopBoard(benchmark::State& state) {
  const int tasks = static_cast<int>(state.range(0));
  const int workers = static_cast<int>(state.range(1));
  const auto durability = static_cast<store::Durability>(state.range(2));
  std::string flow = state.range(3) == 1 ? MapFlow(tasks) : BoardFlow(tasks);
  for (auto _ : state) RunBoard(state, flow, tasks, workers, durability, nullptr);
}

BENCHMARK(BM_NoopBoard)
    ->ArgNames({"tasks", "workers", "durability", "map"})
    ->Args({10'000, 4, 0, 0})
    ->Args({10'000, 4, 1, 0})
    ->Args({10'000, 4, 2, 0})
    ->Args({10'000, 1, 1, 0})
    // Per-task cost must not grow with the run: 1k, 10k and 100k tasks, as a
    // board and as one taskflow map phase (64 items in flight).
    ->Args({1'000, 1, 1, 0})
    ->Args({100'000, 1, 1, 0})
    ->Args({1'000, 1, 1, 1})
    ->Args({10'000, 1, 1, 1})
    ->Args({100'000, 1, 1, 1})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_TracedBoard(benchmark::State& state) {
  const int tasks = static_cast<int>(state.range(0));
  const int target = static_cast<int>(state.range(1));
  const std::string flow = BoardFlow(tasks);
  for (auto _ : state) {
    std::unique_ptr<bench::Receiver> live;
    std::unique_ptr<bench::RefusingPort> dead;
    otel::TracingOptions options;
    options.sampler = {.parent_based = true, .ratio = 1.0};
    if (target == 1) {
      live = std::make_unique<bench::Receiver>();
      options.traces_url = live->url();
    } else if (target == 2) {
      dead = std::make_unique<bench::RefusingPort>();
      options.traces_url = dead->url();
    }
    absl::StatusOr<std::unique_ptr<otel::Tracing>> tracing = otel::Tracing::Create(options);
    if (!tracing.ok()) {
      state.SkipWithError(std::string(tracing.status().message()).c_str());
      return;
    }
    RunBoard(state, flow, tasks, 4, store::Durability::kWal, &(*tracing)->tracer());
    // What became of the spans: exported within 10 s of the run's end, or
    // dropped (queue full, export failed; the rest at shutdown).
    (*tracing)->Flush(absl::Seconds(10));
    (*tracing)->Shutdown(absl::Seconds(1));
    const otel::ExportStats stats = (*tracing)->stats();
    state.counters["spans_exported"] = static_cast<double>(stats.exported);
    state.counters["spans_dropped"] = static_cast<double>(stats.dropped());
  }
}

BENCHMARK(BM_TracedBoard)
    ->ArgNames({"tasks", "tracing"})
    ->Args({10'000, 0})
    ->Args({10'000, 1})
    ->Args({10'000, 2})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// SubmitRun of one board of N tasks: parse, validate and commit the run,
// until the reply (no workers, so nothing runs); its tasks are created and
// committed after the reply (decision 121). Reported, as medians of
// `submits` calls on one scheduler:
// - submit_p50_ms: the reply, on a scheduler not still creating an earlier
//   board's tasks (a GetRun after each submit waits for them);
// - submit_then_get_p50_ms: the reply plus that GetRun, which returns once
//   the tasks are written: when a client can see them;
// - back_to_back_p50_ms: the reply when the submits follow each other at
//   once, each waiting behind the one before it.
void BM_SubmitBoard(benchmark::State& state) {
  const int tasks = static_cast<int>(state.range(0));
  const auto durability = static_cast<store::Durability>(state.range(1));
  constexpr int kSubmits = 5;
  v1::SubmitRunRequest request;
  request.mutable_source()->set_text(BoardFlow(tasks));
  auto median_ms = [](std::vector<int64_t> us) {
    std::sort(us.begin(), us.end());
    return static_cast<double>(us[us.size() / 2]) / 1000;
  };
  for (auto _ : state) {
    BenchCluster cluster;
    if (absl::Status started = cluster.Start(durability, tasks, 0); !started.ok()) {
      state.SkipWithError(std::string(started.message()).c_str());
      return;
    }
    auto submit = [&](std::string* run_id) {
      grpc::ClientContext context;
      v1::SubmitRunResponse response;
      grpc::Status status = cluster.client->SubmitRun(&context, request, &response);
      *run_id = response.run_id();
      return status;
    };
    auto get = [&](const std::string& run_id) -> grpc::Status {
      grpc::ClientContext context;
      v1::GetRunRequest get;
      get.set_run_id(run_id);
      v1::GetRunResponse run;
      grpc::Status status = cluster.client->GetRun(&context, get, &run);
      if (status.ok() && run.run().tasks_size() != tasks) {
        return grpc::Status(grpc::StatusCode::INTERNAL,
                            "GetRun after SubmitRun did not return every task");
      }
      return status;
    };
    std::vector<int64_t> submit_us;
    std::vector<int64_t> visible_us;
    for (int i = 0; i < kSubmits; ++i) {
      std::string run_id;
      const int64_t started_us = NowUs();
      grpc::Status status = submit(&run_id);
      submit_us.push_back(NowUs() - started_us);
      if (status.ok()) status = get(run_id);
      visible_us.push_back(NowUs() - started_us);
      if (!status.ok()) {
        state.SkipWithError(status.error_message().c_str());
        return;
      }
    }
    std::vector<int64_t> back_to_back_us;
    for (int i = 0; i < kSubmits; ++i) {
      std::string run_id;
      const int64_t started_us = NowUs();
      if (grpc::Status status = submit(&run_id); !status.ok()) {
        state.SkipWithError(status.error_message().c_str());
        return;
      }
      back_to_back_us.push_back(NowUs() - started_us);
    }
    state.SetIterationTime(median_ms(submit_us) / 1000);
    state.counters["submit_p50_ms"] = median_ms(submit_us);
    state.counters["submit_max_ms"] =
        static_cast<double>(*std::max_element(submit_us.begin(), submit_us.end())) / 1000;
    state.counters["submit_then_get_p50_ms"] = median_ms(visible_us);
    state.counters["back_to_back_p50_ms"] = median_ms(back_to_back_us);
  }
}

BENCHMARK(BM_SubmitBoard)
    ->ArgNames({"tasks", "durability"})
    ->Args({1'000, 1})
    ->Args({10'000, 1})
    // Per-task cost must stay flat with the run's size.
    ->Args({100'000, 1})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_PacedBoards(benchmark::State& state) {
  const int rate = static_cast<int>(state.range(0));
  const int board_size = static_cast<int>(state.range(1));
  const int workers = static_cast<int>(state.range(2));
  const auto durability = static_cast<store::Durability>(state.range(3));
  const int seconds = static_cast<int>(state.range(4));
  const int boards = rate * seconds / board_size;
  const auto interval = std::chrono::microseconds(1'000'000LL * board_size / rate);
  std::string flow = BoardFlow(board_size);
  for (auto _ : state) {
    BenchCluster cluster;
    if (absl::Status started = cluster.Start(durability, board_size, workers); !started.ok()) {
      state.SkipWithError(std::string(started.message()).c_str());
      return;
    }
    // Submit on a fixed schedule; a late submit does not push the later ones
    // back (open loop), and the lag is reported.
    std::vector<std::pair<std::string, int64_t>> runs;  // run id, submit ms
    int64_t max_lag_us = 0;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < boards; ++i) {
      auto due = start + i * interval;
      std::this_thread::sleep_until(due);
      max_lag_us =
          std::max<int64_t>(max_lag_us, std::chrono::duration_cast<std::chrono::microseconds>(
                                            std::chrono::steady_clock::now() - due)
                                            .count());
      int64_t submit_ms = NowUs() / 1000;
      absl::StatusOr<std::string> run_id = cluster.Submit(flow);
      if (!run_id.ok()) {
        state.SkipWithError(std::string(run_id.status().message()).c_str());
        return;
      }
      runs.emplace_back(*std::move(run_id), submit_ms);
    }
    // Collect every run once it has finished (bounded wait).
    std::vector<int64_t> e2e_ms;
    int completed = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (const auto& [run_id, submit_ms] : runs) {
      v1::GetRunResponse run;
      while (std::chrono::steady_clock::now() < deadline) {
        v1::GetRunRequest get;
        get.set_run_id(run_id);
        grpc::ClientContext context;
        run.Clear();
        if (cluster.client->GetRun(&context, get, &run).ok() &&
            engine::IsTerminal(run.run().status())) {
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      for (const v1::Task& task : run.run().tasks()) {
        if (task.state() != v1::TASK_STATE_COMPLETED) continue;
        ++completed;
        e2e_ms.push_back(engine::ToUnixMs(task.finished_at()) - submit_ms);
      }
    }
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(elapsed);
    std::vector<int64_t> dispatch_us = cluster.TakeDispatchLatencies();
    state.counters["offered_tasks_per_s"] = rate;
    state.counters["dispatch_p50_us"] = Percentile(dispatch_us, 0.50);
    state.counters["dispatch_p99_us"] = Percentile(dispatch_us, 0.99);
    state.counters["e2e_p50_ms"] = Percentile(e2e_ms, 0.50);
    state.counters["e2e_p99_ms"] = Percentile(e2e_ms, 0.99);
    state.counters["completed"] = completed;
    state.counters["submit_lag_max_ms"] = static_cast<double>(max_lag_us) / 1000;
  }
}

BENCHMARK(BM_PacedBoards)
    ->ArgNames({"rate", "board", "workers", "durability", "seconds"})
    ->Args({1'000, 10, 4, 1, 5})
    ->Args({2'000, 20, 4, 1, 5})
    ->Args({2'400, 40, 4, 1, 5})
    ->Args({4'000, 40, 4, 1, 5})
    // Half the real-process peak (about 12,000 tasks/s) and of this
    // benchmark's own (about 26,000).
    ->Args({6'000, 60, 4, 1, 5})
    ->Args({13'000, 130, 4, 1, 5})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Resident set size of this process (the scheduler, its no-op workers and
// the client), in MiB.
double RssMiB() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) / (1 << 20);
}

double DiskMiB(const std::filesystem::path& dir) {
  std::error_code ec;
  uintmax_t bytes = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) bytes += it->file_size(ec);
  }
  return static_cast<double>(bytes) / (1 << 20);
}

// Waits for the run to finish: its run_finished event, or NOT_FOUND once
// retention has already deleted it.
void WaitForRunEnd(v1::Scheduler::Stub& client, const std::string& run_id) {
  v1::WatchRunRequest watch;
  watch.set_run_id(run_id);
  watch.set_max_events_per_message(1000);
  grpc::ClientContext context;
  auto reader = client.WatchRun(&context, watch);
  v1::WatchRunResponse event;
  while (reader->Read(&event) && !HasRunFinished(event)) {
  }
  context.TryCancel();
  reader->Finish();
}

int ListedRuns(v1::Scheduler::Stub& client) {
  v1::ListRunsRequest request;
  request.set_page_size(500);
  v1::ListRunsResponse response;
  grpc::ClientContext context;
  if (!client.ListRuns(&context, request, &response).ok()) return -1;
  return response.runs_size();
}

void BM_RetentionSoak(benchmark::State& state) {
  const int runs = static_cast<int>(state.range(0));
  const int tasks = static_cast<int>(state.range(1));
  const int workers = static_cast<int>(state.range(2));
  const auto durability = static_cast<store::Durability>(state.range(3));
  constexpr int kInFlight = 8;
  constexpr int64_t kRetentionMs = 2'000;
  const std::string flow = BoardFlow(tasks);
  for (auto _ : state) {
    BenchCluster cluster;
    if (absl::Status started = cluster.Start(durability, tasks, workers, kRetentionMs);
        !started.ok()) {
      state.SkipWithError(std::string(started.message()).c_str());
      return;
    }
    const double rss_start = RssMiB();
    const double disk_start = DiskMiB(cluster.dir);
    double rss_peak = rss_start;
    double disk_peak = disk_start;
    std::vector<double> rss_quarters;
    std::vector<std::string> in_flight;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < runs; ++i) {
      if (static_cast<int>(in_flight.size()) == kInFlight) {
        WaitForRunEnd(*cluster.client, in_flight.front());
        in_flight.erase(in_flight.begin());
      }
      absl::StatusOr<std::string> run_id = cluster.Submit(flow);
      if (!run_id.ok()) {
        state.SkipWithError(std::string(run_id.status().message()).c_str());
        return;
      }
      in_flight.push_back(*std::move(run_id));
      if ((i + 1) % std::max(1, runs / 20) == 0) {
        rss_peak = std::max(rss_peak, RssMiB());
        disk_peak = std::max(disk_peak, DiskMiB(cluster.dir));
      }
      if ((i + 1) % std::max(1, runs / 4) == 0) rss_quarters.push_back(RssMiB());
    }
    for (const std::string& run_id : in_flight) WaitForRunEnd(*cluster.client, run_id);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Retention deletes the last runs 2 s after they finish.
    int left = ListedRuns(*cluster.client);
    for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
         left != 0 && std::chrono::steady_clock::now() < deadline;
         left = ListedRuns(*cluster.client)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    state.SetIterationTime(seconds);
    state.counters["tasks_per_s"] = static_cast<double>(runs) * tasks / seconds;
    state.counters["runs_left"] = left;
    state.counters["rss_start_mib"] = rss_start;
    for (size_t q = 0; q < rss_quarters.size(); ++q) {
      state.counters[absl::StrCat("rss_q", q + 1, "_mib")] = rss_quarters[q];
    }
    state.counters["rss_peak_mib"] = rss_peak;
    state.counters["rss_end_mib"] = RssMiB();
    state.counters["disk_start_mib"] = disk_start;
    state.counters["disk_peak_mib"] = disk_peak;
    state.counters["disk_end_mib"] = DiskMiB(cluster.dir);
  }
}

BENCHMARK(BM_RetentionSoak)
    ->ArgNames({"runs", "tasks", "workers", "durability"})
    ->Args({50, 200, 4, 1})  // a quick check of the soak itself
    ->Args({1'000, 1'000, 4, 1})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

// Pending tasks and recovery: R boards of T no-op tasks are submitted to a
// scheduler with no workers (every task stays ready), then the scheduler is
// restarted on the same RocksDB directory. Reported: the process's RSS per
// pending task (scheduler and its RocksDB; no workers, so nothing else
// grows), how long the restart took until the new scheduler served (all R
// runs recovered into memory; the benchmark's time), split into stopping
// the old scheduler (stop_ms: freeing its state, which a new process does
// not wait for) and starting the new one until it serves (recover_ms:
// opening RocksDB and recovery), and RSS per task after it.
//
//   build/bin/scheduler_bench --benchmark_filter=PendingAndRestart
//
// Args: {runs R, tasks per run T}.
void BM_PendingAndRestart(benchmark::State& state) {
  const int runs = static_cast<int>(state.range(0));
  const int tasks = static_cast<int>(state.range(1));
  const std::string flow = BoardFlow(tasks);
  for (auto _ : state) {
    BenchCluster cluster;
    if (absl::Status started = cluster.Start(store::Durability::kWal, tasks, 0); !started.ok()) {
      state.SkipWithError(std::string(started.message()).c_str());
      return;
    }
    const double rss_start = RssMiB();
    for (int i = 0; i < runs; ++i) {
      if (absl::StatusOr<std::string> run_id = cluster.Submit(flow); !run_id.ok()) {
        state.SkipWithError(std::string(run_id.status().message()).c_str());
        return;
      }
    }
    const double rss_pending = RssMiB();
    const auto start = std::chrono::steady_clock::now();
    std::chrono::steady_clock::duration stopped{};
    if (absl::Status restarted = cluster.Restart(&stopped); !restarted.ok()) {
      state.SkipWithError(std::string(restarted.message()).c_str());
      return;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double stop_seconds = std::chrono::duration<double>(stopped).count();
    state.SetIterationTime(seconds);
    const double total = static_cast<double>(runs) * tasks;
    state.counters["tasks"] = total;
    state.counters["rss_per_pending_task_bytes"] = (rss_pending - rss_start) * (1 << 20) / total;
    state.counters["restart_ms"] = seconds * 1000;
    state.counters["stop_ms"] = stop_seconds * 1000;
    state.counters["recover_ms"] = (seconds - stop_seconds) * 1000;
    state.counters["rss_after_restart_mib"] = RssMiB();
  }
}
BENCHMARK(BM_PendingAndRestart)
    ->ArgNames({"runs", "tasks"})
    ->Args({10, 10'000})
    ->Args({100, 10'000})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace taskboard

BENCHMARK_MAIN();
