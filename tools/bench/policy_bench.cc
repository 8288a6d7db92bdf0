// Prior-work selection time against ledger size (docs/performance.md).
//
// SEMANTICS.md 3: selection cost must not grow with the ledger beyond what
// it selects. Each benchmark builds one request ledger of N observations
// (outside the timed loop, once per size) and times SelectPriorWork for a
// task whose declared deps made 8 of them:
//   RecentTrajectory   recent_trajectory{n: 8}
//   DeclaredDepsOnly   declared_deps_only (2 deps x 4 observations)
// Both should stay flat from 1k to 1M observations. Reported per run:
//   selected  observations selected (8)
//   ledger    ledger size N
//
//   build/bin/policy_bench

#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "scheduler/policy/in_memory_task_graph.h"
#include "scheduler/policy/prior_work_policy.h"
#include "scheduler/policy/request_ledger.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::policy {
namespace {

constexpr char kRun[] = "run-1";
constexpr int kObservationsPerFillerTask = 10;
constexpr int kObservationsPerDep = 4;

v1::Observation MakeObservation(const std::string& task_id, int64_t i) {
  v1::Observation obs;
  obs.set_run_id(kRun);
  obs.set_task_id(task_id);
  obs.set_tool_name(i % 3 == 0 ? "read_file" : "search");
  obs.set_args_json(absl::StrCat("{\"path\":\"src/file_", i, ".cc\"}"));
  obs.set_result_json(absl::StrCat("{\"bytes\":1234,\"content\":\"contents of file ", i, "\"}"));
  return obs;
}

// A ledger of `size` observations by filler tasks, with the 8 observations
// of the dispatched task's two deps in the middle, and its graph.
struct Request {
  explicit Request(int64_t size) : size(size), ledger(kRun) {
    const int64_t middle = size / 2;
    for (int64_t i = 0; i < size; ++i) {
      const int64_t dep_slot = i - middle;
      std::string task_id = dep_slot >= 0 && dep_slot < 2 * kObservationsPerDep
                                ? absl::StrCat("dep-", dep_slot % 2)
                                : absl::StrCat("filler-", i / kObservationsPerFillerTask);
      ledger.Append(MakeObservation(task_id, i));
    }
    graph.AddTask(TaskKey{kRun, "x"}, {TaskKey{kRun, "dep-0"}, TaskKey{kRun, "dep-1"}});
  }

  int64_t size;
  RequestLedger ledger;
  InMemoryTaskGraph graph;
};

// One ledger at a time: building is the slow part, and two 1M ledgers need
// not coexist.
const Request& RequestOfSize(int64_t size) {
  static std::unique_ptr<Request> request;
  if (request == nullptr || request->size != size) {
    request.reset();
    request = std::make_unique<Request>(size);
  }
  return *request;
}

void RunSelection(benchmark::State& state, const v1::FlowPolicy& policy) {
  const Request& request = RequestOfSize(state.range(0));
  const PolicyInput input{request.ledger, request.graph, TaskKey{kRun, "x"}};
  int32_t selected = 0;
  for (auto _ : state) {
    v1::PriorWork prior_work = SelectPriorWork(policy, input);
    selected = prior_work.meta().selected();
    benchmark::DoNotOptimize(prior_work);
  }
  state.counters["selected"] = selected;
  state.counters["ledger"] = static_cast<double>(request.ledger.size());
}

void BM_RecentTrajectory(benchmark::State& state) {
  v1::FlowPolicy policy;
  policy.mutable_recent_trajectory()->set_n(8);
  RunSelection(state, policy);
}

void BM_DeclaredDepsOnly(benchmark::State& state) {
  v1::FlowPolicy policy;
  policy.mutable_declared_deps_only();
  RunSelection(state, policy);
}

}  // namespace
}  // namespace taskboard::policy

// Registered size by size (benchmarks run in registration order), so each
// ledger is built once and serves both policies.
int main(int argc, char** argv) {
  for (int64_t size : {1000, 10000, 100000, 1000000}) {
    benchmark::RegisterBenchmark("BM_RecentTrajectory", taskboard::policy::BM_RecentTrajectory)
        ->Arg(size);
    benchmark::RegisterBenchmark("BM_DeclaredDepsOnly", taskboard::policy::BM_DeclaredDepsOnly)
        ->Arg(size);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
