// LLM grant round trips through a real scheduler (docs/llm-governance.md,
// docs/performance.md): a worker stream holding 16 leased tasks asks for
// grants at a fixed rate, and each grant's round trip (request written ->
// grant read) is recorded; every grant is reported right away, as a call
// that used 10 + 5 tokens. The model has a limit far above the rate, so
// every grant goes through the governor's buckets without waiting on them.
//
//   build/bin/llm_grant_bench
//
// Counters: grants_per_s, rtt_p50_us, rtt_p99_us (target: p99 under 2 ms at
// 2,000 grants/s on a 2-core machine).

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "benchmark/benchmark.h"
#include "grpcpp/create_channel.h"
#include "scheduler/server/scheduler_server.h"
#include "taskboard/v1/scheduler.grpc.pb.h"
#include "taskboard/v1/worker.grpc.pb.h"

namespace taskboard {
namespace {

constexpr int kSlots = 16;
constexpr char kModel[] = "bench-model";

int64_t NowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double Percentile(std::vector<int64_t> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return static_cast<double>(
      values[std::min(values.size() - 1, static_cast<size_t>(p * values.size()))]);
}

// A worker that keeps its assignments (their leases stay live for the
// benchmark's few seconds) and asks for grants under them.
class GrantWorker {
 public:
  explicit GrantWorker(const std::string& address) {
    stub_ = v1::WorkerGateway::NewStub(
        grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
    stream_ = stub_->Connect(&context_);
    v1::ConnectRequest hello;
    hello.mutable_hello()->set_worker_id("grant-bench");
    hello.mutable_hello()->add_agents()->set_name("noop");
    hello.mutable_hello()->set_slots(kSlots);
    stream_->Write(hello);
    reader_ = std::thread([this] { Read(); });
  }

  ~GrantWorker() {
    context_.TryCancel();
    reader_.join();
  }

  // Waits until all slots hold a task.
  bool WaitForLeases() {
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(absl::Condition(
                                    +[](std::vector<v1::Assignment>* held) {
                                      return held->size() >= static_cast<size_t>(kSlots);
                                    },
                                    &held_),
                                absl::Seconds(30));
  }

  // Asks for one grant under a held lease.
  void Ask(int64_t n) {
    v1::ConnectRequest request;
    v1::LlmGrantRequest& ask = *request.mutable_llm_grant_request();
    {
      absl::MutexLock lock(&mu_);
      const v1::Assignment& task = held_[n % held_.size()];
      ask.set_task_id(task.task_id());
      ask.set_lease_id(task.lease_id());
      ask.set_request_id(absl::StrCat(n));
      sent_us_[ask.request_id()] = NowUs();
    }
    ask.set_model(kModel);
    ask.set_estimated_input_tokens(10);
    ask.set_max_output_tokens(5);
    absl::MutexLock write(&write_mu_);
    stream_->Write(request);
  }

  std::vector<int64_t> TakeRoundTrips() {
    absl::MutexLock lock(&mu_);
    return std::move(rtt_us_);
  }

 private:
  void Read() {
    v1::ConnectResponse message;
    while (stream_->Read(&message)) {
      std::vector<const v1::ConnectResponse*> messages;
      if (message.has_batch()) {
        for (const v1::ConnectResponse& inner : message.batch().messages()) {
          messages.push_back(&inner);
        }
      } else {
        messages.push_back(&message);
      }
      for (const v1::ConnectResponse* one : messages) {
        if (one->has_assignment()) {
          absl::MutexLock lock(&mu_);
          held_.push_back(one->assignment());
        } else if (one->has_llm_grant()) {
          Granted(one->llm_grant());
        }
      }
    }
  }

  void Granted(const v1::LlmGrant& grant) {
    const int64_t now = NowUs();
    v1::ConnectRequest report;
    {
      absl::MutexLock lock(&mu_);
      auto sent = sent_us_.find(grant.request_id());
      if (sent == sent_us_.end()) return;
      rtt_us_.push_back(now - sent->second);
      sent_us_.erase(sent);
    }
    v1::LlmCallReport& call = *report.mutable_llm_call_report();
    call.set_grant_id(grant.grant_id());
    call.set_model(kModel);
    call.set_http_status(200);
    call.set_input_tokens(10);
    call.set_output_tokens(5);
    absl::MutexLock write(&write_mu_);
    stream_->Write(report);
  }

  std::unique_ptr<v1::WorkerGateway::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::ConnectRequest, v1::ConnectResponse>> stream_;
  std::thread reader_;
  absl::Mutex write_mu_;  // one Write at a time
  absl::Mutex mu_;
  std::vector<v1::Assignment> held_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int64_t> sent_us_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> rtt_us_ ABSL_GUARDED_BY(mu_);
};

// Args: {grants per second, seconds}.
void BM_LlmGrantRoundTrip(benchmark::State& state) {
  const int64_t rate = state.range(0);
  const int64_t seconds = state.range(1);
  for (auto _ : state) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / absl::StrCat("taskboard-grant-bench-", ::getpid());
    std::filesystem::remove_all(dir);
    server::SchedulerServerOptions options;
    options.listen_address = "127.0.0.1:0";
    options.data_dir = dir.string();
    options.durability = store::Durability::kWal;
    options.engine.lease_timeout_ms = 600'000;
    options.engine.llm_limits.models[kModel] = {
        .rpm = 100.0 * 60 * rate, .tpm = 0, .concurrency = 0};
    auto server = server::SchedulerServer::Create(options);
    if (!server.ok()) {
      state.SkipWithError(std::string(server.status().message()).c_str());
      return;
    }
    const std::string address = absl::StrCat("127.0.0.1:", (*server)->port());
    {
      GrantWorker worker(address);
      auto client =
          v1::Scheduler::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
      std::string flow = "name: grants\nkind: board\nboard:\n  tasks:\n";
      for (int i = 0; i < kSlots; ++i) {
        absl::StrAppend(&flow, "    - id: t", i, "\n      agent: noop\n      task: hold\n");
      }
      v1::SubmitRunRequest submit;
      submit.mutable_source()->set_text(flow);
      v1::SubmitRunResponse submitted;
      grpc::ClientContext context;
      if (!client->SubmitRun(&context, submit, &submitted).ok() || !worker.WaitForLeases()) {
        state.SkipWithError("the worker got no tasks to ask grants under");
        return;
      }
      const int64_t total = rate * seconds;
      const int64_t interval_us = 1'000'000 / rate;
      const int64_t start = NowUs();
      for (int64_t n = 0; n < total; ++n) {
        const int64_t due = start + n * interval_us;
        while (NowUs() < due) std::this_thread::sleep_for(std::chrono::microseconds(50));
        worker.Ask(n);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const double elapsed = static_cast<double>(NowUs() - start) / 1e6;
      std::vector<int64_t> rtt = worker.TakeRoundTrips();
      state.counters["grants"] = static_cast<double>(rtt.size());
      state.counters["grants_per_s"] = static_cast<double>(rtt.size()) / elapsed;
      state.counters["rtt_p50_us"] = Percentile(rtt, 0.50);
      state.counters["rtt_p99_us"] = Percentile(rtt, 0.99);
      state.counters["rtt_max_us"] = Percentile(rtt, 1.0);
    }
    (*server)->Shutdown();
    std::filesystem::remove_all(dir);
  }
}
BENCHMARK(BM_LlmGrantRoundTrip)
    ->Args({2'000, 5})
    ->Args({500, 5})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace taskboard

BENCHMARK_MAIN();
