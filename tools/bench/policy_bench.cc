// Prior-work selection time and ledger memory against ledger size
// (docs/performance.md "Prior-work selection against ledger size").
//
// docs/semantics.md#flow-policies: selection cost must not grow with the ledger beyond what
// it selects. The scheduler keeps only each ledger's indexes in memory and
// reads the observation bodies a selection picks through a bounded cache
// from RocksDB (engine/tool_calls/ledger_book.h). Each size builds one request ledger of
// N observations in a real RocksDB store in a temp dir (outside the timed
// loop, once per size), loads its indexes as a recovering scheduler would,
// and times SelectPriorWork for a task whose two declared deps made 8 of the
// observations:
//   RecentTrajectory   recent_trajectory{n: 8}
//   DeclaredDepsOnly   declared_deps_only (2 deps x 4 observations)
// each with the ledger cache
//   Cold               empty (budget 0): every selected body is a RocksDB
//                      point read (one MultiGet; RocksDB's own block cache
//                      and the page cache are warm, as on a busy scheduler)
//   Warm               64 KiB, smaller than every ledger here: the selected
//                      bodies stay cached between selections
// Both should stay flat from 1k to 1M observations. Reported per run:
//   selected              observations selected (8)
//   ledger                ledger size N
//   index_bytes_per_entry what the in-memory indexes hold per observation
//                         (RequestLedger::IndexBytes: vector capacities and
//                         hash slots, no allocator overhead)
//   rss_bytes_per_entry   RSS growth while loading the indexes, per
//                         observation (includes allocator overhead and
//                         RocksDB's block cache filling during the scan, so
//                         an upper bound)
//   index_load_ms         loading the indexes from the store (a scan that
//                         parses every entry), as on a request's first use
//                         after a restart
//
//   build/bin/policy_bench

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "scheduler/engine/tool_calls/ledger_book.h"
#include "scheduler/policy/in_memory_task_graph.h"
#include "scheduler/policy/prior_work_policy.h"
#include "scheduler/policy/request_ledger.h"
#include "scheduler/store/rocksdb_store.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::policy {
namespace {

constexpr char kRun[] = "run-1";
constexpr int kObservationsPerFillerTask = 10;
constexpr int kObservationsPerDep = 4;
constexpr int64_t kWarmCacheBytes = 64 << 10;
constexpr int64_t kWriteBatchObservations = 10'000;

v1::Observation MakeObservation(const std::string& task_id, int64_t i) {
  v1::Observation obs;
  obs.set_run_id(kRun);
  obs.set_task_id(task_id);
  obs.set_tool_name(i % 3 == 0 ? "read_file" : "search");
  obs.set_args_json(absl::StrCat("{\"path\":\"src/file_", i, ".cc\"}"));
  obs.set_result_json(absl::StrCat("{\"bytes\":1234,\"content\":\"contents of file ", i, "\"}"));
  return obs;
}

int64_t RssBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0;
  int64_t resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<int64_t>(::sysconf(_SC_PAGESIZE));
}

std::filesystem::path MakeTempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern =
      (std::filesystem::path(base != nullptr ? base : "/tmp") / "policy-bench.XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) std::abort();
  return pattern;
}

void Check(const absl::Status& status, const char* what) {
  if (status.ok()) return;
  std::fprintf(stderr, "policy_bench: %s: %s\n", what, std::string(status.message()).c_str());
  std::abort();
}

// A ledger of `size` observations by filler tasks, with the 8 observations
// of the dispatched task's two deps in the middle, stored in RocksDB; two
// books over it (cold and warm cache) with their indexes loaded; the graph.
struct Request {
  explicit Request(int64_t size) : size(size), dir(MakeTempDir()) {
    store::RocksDbStoreOptions options;
    options.path = (dir / "db").string();
    options.durability = store::Durability::kNone;
    absl::StatusOr<std::unique_ptr<store::Store>> opened = store::OpenRocksDbStore(options);
    Check(opened.status(), "opening RocksDB");
    db = *std::move(opened);
    Write();
    const int64_t rss_before = RssBytes();
    const auto load_start = std::chrono::steady_clock::now();
    cold_book = std::make_unique<engine::LedgerBook>(db.get(), 0);
    absl::StatusOr<RequestLedger*> loaded = cold_book->Get(kRun);
    Check(loaded.status(), "loading the ledger");
    cold = *loaded;
    load_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start)
            .count();
    rss_bytes_per_entry = static_cast<double>(RssBytes() - rss_before) / static_cast<double>(size);
    warm_book = std::make_unique<engine::LedgerBook>(db.get(), kWarmCacheBytes);
    loaded = warm_book->Get(kRun);
    Check(loaded.status(), "loading the ledger");
    warm = *loaded;
    graph.AddTask(TaskKey{kRun, "x"}, {TaskKey{kRun, "dep-0"}, TaskKey{kRun, "dep-1"}});
  }

  ~Request() {
    cold_book.reset();
    warm_book.reset();
    db.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }

  void Write() {
    engine::LedgerBook writer(db.get(), 0);
    Check(writer.Get(kRun).status(), "creating the ledger");
    const int64_t middle = size / 2;
    store::WriteBatch batch;
    for (int64_t i = 0; i < size; ++i) {
      const int64_t dep_slot = i - middle;
      std::string task_id = dep_slot >= 0 && dep_slot < 2 * kObservationsPerDep
                                ? absl::StrCat("dep-", dep_slot % 2)
                                : absl::StrCat("filler-", i / kObservationsPerFillerTask);
      writer.Append(kRun, MakeObservation(task_id, i), batch);
      if ((i + 1) % kWriteBatchObservations == 0 || i + 1 == size) {
        Check(db->Write(batch), "writing the ledger");
        batch.Clear();
      }
    }
  }

  int64_t size;
  std::filesystem::path dir;
  std::unique_ptr<store::Store> db;
  std::unique_ptr<engine::LedgerBook> cold_book;
  std::unique_ptr<engine::LedgerBook> warm_book;
  RequestLedger* cold = nullptr;
  RequestLedger* warm = nullptr;
  double rss_bytes_per_entry = 0;
  double load_ms = 0;
  InMemoryTaskGraph graph;
};

// The ledger being measured. One at a time: building is the slow part, and
// two 1M ledgers need not coexist. Released by main before exit, while
// RocksDB's own statics are still alive (and so its temp dir goes too).
std::unique_ptr<Request>& CurrentRequest() {
  static auto* request = new std::unique_ptr<Request>();
  return *request;
}

Request& RequestOfSize(int64_t size) {
  std::unique_ptr<Request>& request = CurrentRequest();
  if (request == nullptr || request->size != size) {
    request.reset();
    request = std::make_unique<Request>(size);
  }
  return *request;
}

void RunSelection(benchmark::State& state, const v1::FlowPolicy& policy, bool warm_cache) {
  Request& request = RequestOfSize(state.range(0));
  RequestLedger& ledger = warm_cache ? *request.warm : *request.cold;
  const PolicyInput input{ledger, request.graph, TaskKey{kRun, "x"}};
  int32_t selected = 0;
  for (auto _ : state) {
    v1::PriorWork prior_work = SelectPriorWork(policy, input);
    selected = prior_work.observations_size();
    benchmark::DoNotOptimize(prior_work);
  }
  Check(ledger.TakeReadError(), "reading the selection");
  state.counters["selected"] = selected;
  state.counters["ledger"] = static_cast<double>(ledger.size());
  state.counters["index_bytes_per_entry"] =
      static_cast<double>(ledger.IndexBytes()) / static_cast<double>(ledger.size());
  state.counters["rss_bytes_per_entry"] = request.rss_bytes_per_entry;
  state.counters["index_load_ms"] = request.load_ms;
}

v1::FlowPolicy RecentTrajectory() {
  v1::FlowPolicy policy;
  policy.mutable_recent_trajectory()->set_n(8);
  return policy;
}

v1::FlowPolicy DeclaredDepsOnly() {
  v1::FlowPolicy policy;
  policy.mutable_declared_deps_only();
  return policy;
}

void BM_RecentTrajectoryCold(benchmark::State& state) {
  RunSelection(state, RecentTrajectory(), false);
}
void BM_RecentTrajectoryWarm(benchmark::State& state) {
  RunSelection(state, RecentTrajectory(), true);
}
void BM_DeclaredDepsOnlyCold(benchmark::State& state) {
  RunSelection(state, DeclaredDepsOnly(), false);
}
void BM_DeclaredDepsOnlyWarm(benchmark::State& state) {
  RunSelection(state, DeclaredDepsOnly(), true);
}

}  // namespace
}  // namespace taskboard::policy

// Registered size by size (benchmarks run in registration order), so each
// ledger is built once and serves every policy and cache.
int main(int argc, char** argv) {
  namespace policy = taskboard::policy;
  for (int64_t size : {1000, 10000, 100000, 1000000}) {
    benchmark::RegisterBenchmark("BM_RecentTrajectoryCold", policy::BM_RecentTrajectoryCold)
        ->Arg(size);
    benchmark::RegisterBenchmark("BM_RecentTrajectoryWarm", policy::BM_RecentTrajectoryWarm)
        ->Arg(size);
    benchmark::RegisterBenchmark("BM_DeclaredDepsOnlyCold", policy::BM_DeclaredDepsOnlyCold)
        ->Arg(size);
    benchmark::RegisterBenchmark("BM_DeclaredDepsOnlyWarm", policy::BM_DeclaredDepsOnlyWarm)
        ->Arg(size);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  policy::CurrentRequest().reset();
  benchmark::Shutdown();
  return 0;
}
