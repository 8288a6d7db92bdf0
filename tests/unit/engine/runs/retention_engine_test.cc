// --retention: a finished root run older than the retention is deleted with
// everything it left (run record, spec, phases, tasks, events, prior work,
// ledger, request-scoped cache entries, idempotency key), a slice of keys
// per loop iteration, and a restart mid-way finishes the job. Younger and
// running runs are left alone.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/engine.h"
#include "scheduler/store/keys.h"
#include "tests/unit/engine/engine_harness.h"
#include "tests/unit/engine/read_file_calls.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::SizeIs;

using ::taskboard::engine::testing::kReadArgs;
using ::taskboard::engine::testing::kReadResult;

constexpr int64_t kRetentionMs = 60'000;

// Cached in the run's request scope, for longer than the retention.
v1::ToolDeclaration CacheableReadFile() {
  return testing::CacheableReadFile(24 * 3600 * 1000, v1::CACHE_SCOPE_REQUEST);
}

EngineOptions WithRetention(size_t keys_per_batch = 2'000) {
  EngineOptions options = EngineHarness::DefaultOptions();
  options.retention_ms = kRetentionMs;
  options.retention_keys_per_batch = keys_per_batch;
  return options;
}

std::string Board(int count) {
  std::string tasks;
  for (int i = 0; i < count; ++i) {
    absl::StrAppend(&tasks, i == 0 ? "" : ",",
                    R"({"id": "t)", i, R"(", "agent": "coder", "task": "x"})");
  }
  return absl::StrCat(R"({"name": "board", "kind": "board", "board": {"tasks": [)", tasks, "]}}");
}

// Keys under `prefix` in `column`.
int Count(store::Store& store, store::Column column, const std::string& prefix) {
  int count = 0;
  EXPECT_TRUE(store
                  .ScanPrefix(column, prefix,
                              [&](absl::string_view, absl::string_view) {
                                ++count;
                                return true;
                              })
                  .ok());
  return count;
}

// Every key the run can have left, in every column.
int KeysOf(store::Store& store, const std::string& run_id) {
  return Count(store, store::Column::kRuns, store::keys::Run(run_id)) +
         Count(store, store::Column::kTasks, store::keys::TasksOfRun(run_id)) +
         Count(store, store::Column::kEvents, store::keys::EventsOfRun(run_id)) +
         Count(store, store::Column::kLedger, store::keys::LedgerKeysOfRequest(run_id)) +
         Count(store, store::Column::kMeta, store::keys::RunPhases(run_id)) +
         Count(store, store::Column::kMeta, store::keys::PriorWorkOfRun(run_id)) +
         Count(store, store::Column::kMeta, store::keys::RunSpec(run_id));
}

// Runs `coder` tasks on `w` to completion, each calling read_file once
// through the cache, until none is left.
void FinishAll(EngineHarness& h, const TestWorker& w) {
  int calls = 0;
  std::vector<v1::Assignment> queue = h.TakeAssignments(w);
  while (!queue.empty()) {
    const v1::Assignment a = queue.back();
    queue.pop_back();
    const std::string request = absl::StrCat("q", ++calls);
    h.Lookup(w, a, request, "read_file", kReadArgs);
    // What the lookup brought back may hold new assignments too.
    std::vector<v1::ConnectResponse> messages = w.channel->Take();
    std::vector<v1::ToolDecision> decisions = EngineHarness::Decisions(messages);
    for (v1::Assignment& next : EngineHarness::Assignments(messages)) queue.push_back(next);
    if (!decisions.empty() && decisions[0].outcome() == v1::ToolDecision::OUTCOME_MISS) {
      h.Observe(w, a, "read_file", kReadArgs, kReadResult, decisions[0].call_id());
    }
    h.Finish(w, a, true, "done");
    for (v1::Assignment& next : h.TakeAssignments(w)) queue.push_back(next);
  }
}

// Moves the clock past the retention and runs the loop until `run_id` has
// no keys left; the number of loop iterations it took.
int SweepUntilGone(EngineHarness& h, const std::string& run_id, int max_iterations = 1'000) {
  h.Advance(kRetentionMs + 1'000);
  int iterations = 1;
  while (KeysOf(h.store(), run_id) > 0 && iterations < max_iterations) {
    h.Advance(10);
    ++iterations;
  }
  return iterations;
}

TEST(Retention, OldFinishedRun_DeletedWithEverythingItLeft) {
  EngineHarness h(WithRetention());
  absl::StatusOr<SubmitResult> submitted = h.TrySubmit(Board(3), Json::object(), "key-1");
  ASSERT_TRUE(submitted.ok()) << submitted.status();
  const std::string run_id = submitted->run_id;
  TestWorker w = h.Connect("w1", {"coder"}, 3, {}, {CacheableReadFile()});
  FinishAll(h, w);
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  ASSERT_GT(Count(h.store(), store::Column::kLedger, store::keys::LedgerKeysOfRequest(run_id)), 0);
  ASSERT_GT(Count(h.store(), store::Column::kCache, ""), 0);

  // Younger than the retention: kept.
  h.Advance(kRetentionMs / 2);
  EXPECT_GT(KeysOf(h.store(), run_id), 0);

  SweepUntilGone(h, run_id);
  EXPECT_EQ(KeysOf(h.store(), run_id), 0);
  EXPECT_EQ(Count(h.store(), store::Column::kCache, ""), 0) << "request-scoped entries go too";
  EXPECT_EQ(Count(h.store(), store::Column::kMeta, store::keys::FinishedRuns()), 0);
  EXPECT_EQ(Count(h.store(), store::Column::kMeta, store::keys::Idempotency("key-1")), 0);

  // The idempotency key names nothing any more: it makes a new run.
  absl::StatusOr<SubmitResult> again = h.TrySubmit(Board(1), Json::object(), "key-1");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(again->existing);
  EXPECT_NE(again->run_id, run_id);
}

TEST(Retention, RunningAndYoungRuns_AreLeftAlone) {
  EngineHarness h(WithRetention());
  const std::string old_run = h.Submit(Board(1));
  TestWorker w = h.Connect("w1", {"coder"}, 1, {}, {CacheableReadFile()});
  FinishAll(h, w);
  ASSERT_EQ(h.Status(old_run), v1::RUN_STATUS_COMPLETED);
  h.Advance(kRetentionMs / 2);
  const std::string young_run = h.Submit(Board(1));
  FinishAll(h, w);
  // Its task waits for a worker with a free slot that never comes.
  TestWorker busy = h.Connect("w2", {"slow"}, /*slots=*/0);
  const std::string running = h.Submit(R"({"name": "waits", "phases": [
      {"id": "a", "agent": "slow", "task": "x"}]})");

  SweepUntilGone(h, old_run);
  EXPECT_EQ(KeysOf(h.store(), old_run), 0);
  EXPECT_EQ(h.Status(young_run), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(h.Status(running), v1::RUN_STATUS_RUNNING);
  h.Advance(kRetentionMs);
  EXPECT_EQ(KeysOf(h.store(), young_run), 0);
  EXPECT_EQ(h.Status(running), v1::RUN_STATUS_RUNNING);
}

// A big run goes a slice at a time (here 25 keys per loop iteration), and a
// scheduler restart in the middle finishes the job.
TEST(Retention, BigRun_DeletedInSlicesAndAfterARestart) {
  EngineHarness h(WithRetention(/*keys_per_batch=*/25));
  const std::string run_id = h.Submit(Board(40));
  TestWorker w = h.Connect("w1", {"coder"}, 8, {}, {CacheableReadFile()});
  FinishAll(h, w);
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  const int keys = KeysOf(h.store(), run_id);
  ASSERT_GT(keys, 150);

  h.Advance(kRetentionMs + 1'000);
  h.Advance(10);
  const int left = KeysOf(h.store(), run_id);
  EXPECT_LT(left, keys);
  EXPECT_GT(left, 0) << "all of it in one iteration";
  EXPECT_EQ(Count(h.store(), store::Column::kRuns, store::keys::Run(run_id)), 1)
      << "the run record goes last";

  h.Restart();
  EXPECT_GT(SweepUntilGone(h, run_id), 3);
  EXPECT_EQ(KeysOf(h.store(), run_id), 0);
}

// Runs finished before the retention index existed are indexed at start-up.
TEST(Retention, RunsFinishedBeforeTheIndex_AreFoundAfterARestart) {
  EngineHarness h(WithRetention());
  const std::string run_id = h.Submit(Board(2));
  TestWorker w = h.Connect("w1", {"coder"}, 2, {}, {CacheableReadFile()});
  FinishAll(h, w);
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  // As an older version left it: no index, no marker.
  store::WriteBatch older;
  EXPECT_TRUE(h.store()
                  .ScanPrefix(store::Column::kMeta, store::keys::FinishedRuns(),
                              [&](absl::string_view key, absl::string_view) {
                                older.Delete(store::Column::kMeta, key);
                                return true;
                              })
                  .ok());
  older.Delete(store::Column::kMeta, store::keys::RunIndexesBuilt());
  ASSERT_TRUE(h.store().Write(older).ok());

  h.Restart();
  SweepUntilGone(h, run_id);
  EXPECT_EQ(KeysOf(h.store(), run_id), 0);
}

// A run resumed after it finished is not deleted for its first finish.
TEST(Retention, ResumedRun_CountsFromItsLastFinish) {
  EngineHarness h(WithRetention());
  const std::string run_id = h.Submit(R"({"name": "once", "phases": [
      {"id": "a", "agent": "coder", "task": "x"}]})");
  TestWorker w = h.Connect("w1", {"coder"}, 1, {}, {CacheableReadFile()});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Finish(w, a, false, "broke");
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_FAILED);
  h.Advance(kRetentionMs - 5'000);
  ASSERT_TRUE(h.Resume(run_id).ok());
  FinishAll(h, w);
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);

  h.Advance(10'000);  // past the first finish's retention, not the second's
  h.Advance(10);
  EXPECT_GT(KeysOf(h.store(), run_id), 0);
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  SweepUntilGone(h, run_id);
  EXPECT_EQ(KeysOf(h.store(), run_id), 0);
}

}  // namespace
}  // namespace taskboard::engine
