// SubmitRun replies once the run is written; its tasks are created and
// written in the engine's next batch (decision 121). What a client relies
// on: the reply never comes before the run is durable, the tasks follow
// without another request, and a scheduler that stops between the two
// writes creates them when it starts again, once.

#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/engine.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/store/keys.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/unit/engine/engine_harness.h"
#include "tests/unit/engine/forwarding_store.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::SizeIs;

constexpr char kBoard[] = R"({"name": "b", "kind": "board", "board": {"tasks": [
    {"id": "t1", "agent": "coder", "task": "one"},
    {"id": "t2", "agent": "coder", "task": "two"},
    {"id": "t3", "agent": "coder", "task": "three"}]}})";

// t2 is created once t1 is done.
constexpr char kChain[] = R"({"name": "c", "kind": "board", "board": {"tasks": [
    {"id": "t1", "agent": "coder", "task": "one"},
    {"id": "t2", "agent": "coder", "task": "two", "deps": ["t1"]},
    {"id": "t3", "agent": "coder", "task": "three"}]}})";

int StoredTasks(store::Store& store, const std::string& run_id) {
  int tasks = 0;
  absl::Status scanned = store.ScanPrefix(store::Column::kTasks, store::keys::TasksOfRun(run_id),
                                          [&](absl::string_view, absl::string_view) {
                                            ++tasks;
                                            return true;
                                          });
  EXPECT_TRUE(scanned.ok()) << scanned;
  return tasks;
}

bool StartPending(store::Store& store, const std::string& run_id) {
  absl::StatusOr<store::RunRecord> record = ReadRunRecord(store, run_id);
  EXPECT_TRUE(record.ok()) << record.status();
  return record.ok() && record->start_pending();
}

// What the store held when SubmitRun replied.
struct AtReply {
  std::string run_id;
  bool run_written = false;
  bool start_pending = false;
  int tasks = -1;
};

AtReply SubmitAndLook(EngineHarness& h, store::Store& store, const char* flow) {
  SubmitRequest request;
  request.spec = taskboard::testing::LoadValidFlow(flow);
  std::optional<AtReply> at_reply;
  h.engine().Submit(std::move(request), [&](absl::StatusOr<SubmitResult> result) {
    ASSERT_TRUE(result.ok()) << result.status();
    AtReply seen;
    seen.run_id = result->run_id;
    seen.run_written = ReadRunRecord(store, result->run_id).ok();
    seen.start_pending = seen.run_written && StartPending(store, result->run_id);
    seen.tasks = StoredTasks(store, result->run_id);
    at_reply = seen;
  });
  h.RunOnce();
  EXPECT_TRUE(at_reply.has_value()) << "Submit did not reply";
  return at_reply.value_or(AtReply());
}

TEST(SubmitStart, RepliesOnceTheRunIsWritten_ItsTasksFollowInTheNextWrite) {
  EngineHarness h;
  const AtReply reply = SubmitAndLook(h, h.store(), kBoard);
  EXPECT_TRUE(reply.run_written) << "the reply came before the run was durable";
  EXPECT_TRUE(reply.start_pending);
  EXPECT_EQ(reply.tasks, 0) << "the reply waited for the run's tasks";

  // The next batch followed without another request.
  EXPECT_EQ(StoredTasks(h.store(), reply.run_id), 3);
  EXPECT_FALSE(StartPending(h.store(), reply.run_id));
  const v1::Run view = h.ReadRunView(reply.run_id);
  EXPECT_EQ(view.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(view.tasks_total(), 3);
  EXPECT_THAT(view.tasks(), SizeIs(3));

  // run_started, then the tasks as one announcement: nothing in between.
  const std::vector<v1::RunEvent> events = h.Events(reply.run_id);
  ASSERT_THAT(events, SizeIs(2));
  EXPECT_TRUE(events[0].has_run_started());
  EXPECT_EQ(events[1].tasks_created().tasks_size(), 3);
}

TEST(SubmitStart, ChildRunsStartInTheirParentsBatch) {
  // A child run's tasks are its parent's business, written with the parent
  // task that hands them over: only SubmitRun replies early.
  EngineHarness h;
  const std::string parent = h.Submit(R"({"name": "p", "phases": [
      {"id": "report", "type": "plan", "agent": "dev", "task": "Write a report",
       "plan": {"plannerAgent": "lead"}}]})");
  const v1::Run view = h.ReadRunView(parent);
  ASSERT_THAT(view.tasks(), SizeIs(1));
  const std::string child = view.tasks(0).child_run_id();
  ASSERT_FALSE(child.empty()) << view.DebugString();
  EXPECT_FALSE(StartPending(h.store(), child));
  EXPECT_GT(StoredTasks(h.store(), child), 0);
}

// Writes pass through until the test cuts them: what a scheduler killed
// right after a write looks like to the next one.
class CuttableStore : public testing::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  absl::Status Write(const store::WriteBatch& batch) override {
    absl::MutexLock lock(&mu_);
    if (cut_) return absl::OkStatus();  // lost with the process
    return inner_.Write(batch);
  }
  void Cut() {
    absl::MutexLock lock(&mu_);
    cut_ = true;
  }

 private:
  absl::Mutex mu_;
  bool cut_ ABSL_GUARDED_BY(mu_) = false;
};

TEST(SubmitStart, ReadsWaitForTheTasksWithoutHoldingAThread) {
  EngineHarness h;
  SubmitRequest request;
  request.spec = taskboard::testing::LoadValidFlow(kBoard);
  std::string run_id;
  bool waited = false;
  int tasks_when_read = -1;
  h.engine().Submit(std::move(request), [&](absl::StatusOr<SubmitResult> result) {
    ASSERT_TRUE(result.ok()) << result.status();
    run_id = result->run_id;
    // A GetRun right after the reply: queued, not run, and nothing blocks.
    h.engine().WhenTasksCreated(run_id, [&] { tasks_when_read = StoredTasks(h.store(), run_id); });
    waited = tasks_when_read == -1;
  });
  h.RunOnce();
  EXPECT_TRUE(waited) << "the read ran before the run's tasks were written";
  EXPECT_EQ(tasks_when_read, 3) << "the read never ran, or ran before the tasks' batch";

  // Any other run is read at once.
  bool read = false;
  h.engine().WhenTasksCreated(run_id, [&] { read = true; });
  EXPECT_TRUE(read);
  h.engine().WhenTasksCreated("run-unknown", [&] { read = false; });
  EXPECT_FALSE(read);
}

// Submits `flow` to a scheduler over `cuttable` that dies right after
// replying: the store holds the run and none of its tasks. The next
// Restart() is over the store itself.
std::string SubmitThenStop(EngineHarness& h, CuttableStore& cuttable, const char* flow) {
  h.store_override = &cuttable;
  h.Restart();
  SubmitRequest request;
  request.spec = taskboard::testing::LoadValidFlow(flow);
  std::string run_id;
  h.engine().Submit(std::move(request), [&](absl::StatusOr<SubmitResult> result) {
    EXPECT_TRUE(result.ok()) << result.status();
    if (result.ok()) run_id = result->run_id;
    cuttable.Cut();
  });
  h.RunOnce();
  h.store_override = nullptr;
  return run_id;
}

TEST(SubmitStart, StoppedBeforeTheTasksWereWritten_TheNextSchedulerCreatesThemOnce) {
  EngineHarness h;
  CuttableStore cuttable(h.store());
  const std::string run_id = SubmitThenStop(h, cuttable, kChain);
  ASSERT_FALSE(run_id.empty());
  ASSERT_EQ(StoredTasks(h.store(), run_id), 0);
  ASSERT_TRUE(StartPending(h.store(), run_id));

  h.Restart();
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/2);
  EXPECT_EQ(StoredTasks(h.store(), run_id), 2) << "t1 and t3";
  EXPECT_FALSE(StartPending(h.store(), run_id));
  // t1 and t3, then t2.
  for (int round = 0; round < 2; ++round) {
    for (const v1::Assignment& assigned : h.TakeAssignments(w)) h.Finish(w, assigned, true, "ok");
  }
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  int started = 0;
  int announced = 0;
  const std::vector<v1::RunEvent> events = h.Events(run_id);
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].seq(), static_cast<int64_t>(i + 1));
    started += events[i].has_run_started() ? 1 : 0;
    announced += events[i].tasks_created().tasks_size();
  }
  EXPECT_EQ(started, 1);
  EXPECT_EQ(announced, 3) << "each task is created once";
  EXPECT_TRUE(events.back().has_run_finished());
}

TEST(SubmitStart, QuarantinedBeforeItsStart_ResumedLater_RunsToTheEnd) {
  EngineHarness h;
  CuttableStore cuttable(h.store());
  const std::string run_id = SubmitThenStop(h, cuttable, kChain);
  ASSERT_FALSE(run_id.empty());

  // The next scheduler cannot read the run's flow, so it fails the run.
  const std::string spec_key = store::keys::RunSpec(run_id);
  absl::StatusOr<std::optional<std::string>> spec = h.store().Get(store::Column::kMeta, spec_key);
  ASSERT_TRUE(spec.ok() && spec->has_value());
  store::WriteBatch corrupt;
  corrupt.Put(store::Column::kMeta, spec_key, "not a flow");
  ASSERT_TRUE(h.store().Write(corrupt).ok());
  h.Restart();
  h.RunOnce();
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_FAILED);
  EXPECT_FALSE(StartPending(h.store(), run_id));

  // Once the flow reads again, ResumeRun starts it and it runs to the end.
  store::WriteBatch restore;
  restore.Put(store::Column::kMeta, spec_key, **spec);
  ASSERT_TRUE(h.store().Write(restore).ok());
  ASSERT_TRUE(h.Resume(run_id).ok());
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/2);
  for (int round = 0; round < 2; ++round) {
    for (const v1::Assignment& assigned : h.TakeAssignments(w)) h.Finish(w, assigned, true, "ok");
  }
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED) << "t2 waits for t1's phase to advance";
  EXPECT_FALSE(StartPending(h.store(), run_id));
}

}  // namespace
}  // namespace taskboard::engine
