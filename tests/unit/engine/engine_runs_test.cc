// Engine run-level operations: cancel, idempotent submit, resume, recovery
// of a store another engine wrote, and the run's event log.

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/engine.h"
#include "scheduler/engine/runs/run_recovery.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/engine/engine_harness.h"
#include "tests/unit/engine/forwarding_store.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kChain[] = R"({"name": "chain", "phases": [
    {"id": "a", "agent": "coder", "task": "write"},
    {"id": "b", "agent": "coder", "task": "review: {steps.a.output}", "dependsOn": ["a"]}]})";

// a and b in parallel, then c.
constexpr char kDiamond[] = R"({"name": "diamond", "phases": [
    {"id": "a", "agent": "coder", "task": "A"},
    {"id": "b", "agent": "coder", "task": "B"},
    {"id": "c", "agent": "coder", "task": "C {steps.a.output} {steps.b.output}",
     "dependsOn": ["a", "b"]}]})";

int CountFinished(const std::vector<v1::RunEvent>& events) {
  int finished = 0;
  for (const v1::RunEvent& event : events) finished += event.has_run_finished() ? 1 : 0;
  return finished;
}

// Seqs are 1..N without gaps, run_started first and run_finished last.
void ExpectWellFormedLog(const std::vector<v1::RunEvent>& events, const std::string& run_id) {
  ASSERT_FALSE(events.empty());
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].seq(), static_cast<int64_t>(i + 1)) << "event " << i;
    EXPECT_EQ(events[i].run_id(), run_id);
  }
  EXPECT_TRUE(events.front().has_run_started());
  EXPECT_TRUE(events.back().has_run_finished());
}

// ---------------------------------------------------------------------------
// Cancel

TEST(EngineRuns, Cancel_RunningRun_SendsCancelToWorkerAndEndsCancelled) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Started(w, a);

  EXPECT_THAT(h.Cancel(run_id, "changed my mind"),
              ::testing::Eq(absl::StatusOr<v1::RunStatus>(v1::RUN_STATUS_CANCELLED)));
  std::vector<v1::Cancel> cancels = EngineHarness::Cancels(w.channel->Take());
  ASSERT_THAT(cancels, SizeIs(1));
  EXPECT_EQ(cancels[0].task_id(), "a");
  EXPECT_EQ(cancels[0].lease_id(), a.lease_id());
  EXPECT_EQ(cancels[0].reason(), "changed my mind");

  v1::Run run = h.ReadRunView(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_CANCELLED);
  EXPECT_EQ(run.error(), "cancelled: changed my mind");
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_CANCELLED);
  std::vector<v1::RunEvent> events = h.Events(run_id);
  ExpectWellFormedLog(events, run_id);
  EXPECT_EQ(events.back().run_finished().status(), v1::RUN_STATUS_CANCELLED);

  // The killed agent's result is fenced off and nothing more is dispatched.
  h.Result(w, a, true, "late");
  std::vector<v1::ConnectResponse> after = w.channel->Take();
  ASSERT_THAT(EngineHarness::Acks(after), SizeIs(1));
  EXPECT_FALSE(EngineHarness::Acks(after)[0].accepted());
  h.Credits(w, 1);
  EXPECT_THAT(h.TakeAssignments(w), IsEmpty());
  EXPECT_EQ(h.Events(run_id).size(), events.size());
}

TEST(EngineRuns, Cancel_UnknownRun_NotFound) {
  EngineHarness h;
  EXPECT_THAT(h.Cancel("run-nope"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("run run-nope not found")));
}

TEST(EngineRuns, Cancel_FinishedRun_ReportsItsStatusUnchanged) {
  EngineHarness h;
  std::string run_id = h.Submit(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A"}]})");
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), true, "done");
  absl::StatusOr<v1::RunStatus> status = h.Cancel(run_id);
  ASSERT_THAT(status, IsOk());
  EXPECT_EQ(*status, v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
}

// ---------------------------------------------------------------------------
// Idempotency

TEST(EngineRuns, IdempotencyKey_SameKey_ReturnsSameRunAsExisting) {
  EngineHarness h;
  absl::StatusOr<SubmitResult> first = h.TrySubmit(kChain, Json::object(), "key-1");
  ASSERT_THAT(first, IsOk());
  EXPECT_FALSE(first->existing);
  absl::StatusOr<SubmitResult> second = h.TrySubmit(kChain, Json::object(), "key-1");
  ASSERT_THAT(second, IsOk());
  EXPECT_TRUE(second->existing);
  EXPECT_EQ(second->run_id, first->run_id);
  absl::StatusOr<SubmitResult> other = h.TrySubmit(kChain, Json::object(), "key-2");
  ASSERT_THAT(other, IsOk());
  EXPECT_NE(other->run_id, first->run_id);

  absl::StatusOr<v1::ListRunsResponse> runs = ListRuns(h.store(), v1::ListRunsRequest());
  ASSERT_THAT(runs, IsOk());
  EXPECT_THAT(runs->runs(), SizeIs(2));
}

TEST(EngineRuns, IdempotencyKey_TwoSubmitsInOneBatch_OneRun) {
  EngineHarness h;
  std::vector<absl::StatusOr<SubmitResult>> results;
  for (int i = 0; i < 2; ++i) {
    SubmitRequest request;
    request.spec = ::taskboard::testing::LoadValidFlow(kChain);
    request.idempotency_key = "same";
    h.engine().Submit(std::move(request),
                      [&](absl::StatusOr<SubmitResult> r) { results.push_back(std::move(r)); });
  }
  h.RunOnce();
  ASSERT_THAT(results, SizeIs(2));
  ASSERT_THAT(results[0], IsOk());
  ASSERT_THAT(results[1], IsOk());
  EXPECT_EQ(results[0]->run_id, results[1]->run_id);
  EXPECT_NE(results[0]->existing, results[1]->existing);
  absl::StatusOr<v1::ListRunsResponse> runs = ListRuns(h.store(), v1::ListRunsRequest());
  ASSERT_THAT(runs, IsOk());
  EXPECT_THAT(runs->runs(), SizeIs(1));
}

TEST(EngineRuns, IdempotencyKey_SurvivesRestartAndRunEnd) {
  EngineHarness h;
  absl::StatusOr<SubmitResult> first = h.TrySubmit(kChain, Json::object(), "key-1");
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(h.Cancel(first->run_id), IsOk());
  h.Restart();
  absl::StatusOr<SubmitResult> again = h.TrySubmit(kChain, Json::object(), "key-1");
  ASSERT_THAT(again, IsOk());
  EXPECT_TRUE(again->existing);
  EXPECT_EQ(again->run_id, first->run_id);
}

// ---------------------------------------------------------------------------
// Resume

TEST(EngineRuns, Resume_FailedRun_ReusesDonePhaseAndRerunsFailedOne) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), true, "draft");
  v1::Assignment b = h.OnlyAssignment(w);
  h.Finish(w, b, false, "reviewer crashed");
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_FAILED);
  const size_t events_before = h.Events(run_id).size();

  absl::StatusOr<ResumeResult> resumed = h.Resume(run_id);
  ASSERT_THAT(resumed, IsOk());
  EXPECT_EQ(resumed->run_id, run_id);
  EXPECT_THAT(resumed->reused_phases, ElementsAre("a"));
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_RUNNING);

  v1::Assignment again = h.OnlyAssignment(w);
  EXPECT_EQ(again.task_id(), "b");
  EXPECT_EQ(again.prompt(), "review: draft");
  EXPECT_EQ(again.attempt(), 1);
  EXPECT_NE(again.lease_id(), b.lease_id());
  h.Finish(w, again, true, "approved");
  v1::Run run = h.ReadRunView(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.output(), "approved");
  EXPECT_EQ(run.error(), "");

  // The log continues under the same run: one more run_started, listing the
  // reused phase, and seqs still without gaps.
  std::vector<v1::RunEvent> events = h.Events(run_id);
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i].seq(), int64_t(i + 1));
  ASSERT_GT(events.size(), events_before);
  EXPECT_TRUE(events[events_before].has_run_started());
  EXPECT_THAT(events[events_before].run_started().reused_phases(), ElementsAre("a"));
  EXPECT_TRUE(events.back().has_run_finished());
  EXPECT_EQ(CountFinished(events), 2);
}

TEST(EngineRuns, Resume_StaleResultFromBeforeResume_Rejected) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/2);
  v1::Assignment a = h.OnlyAssignment(w);
  ASSERT_THAT(h.Cancel(run_id), IsOk());
  ASSERT_THAT(h.Resume(run_id), IsOk());
  v1::Assignment again = h.OnlyAssignment(w);
  ASSERT_EQ(again.task_id(), "a");
  h.Result(w, a, true, "from the cancelled attempt");
  std::vector<v1::ResultAck> acks = EngineHarness::Acks(w.channel->Take());
  ASSERT_THAT(acks, SizeIs(1));
  EXPECT_FALSE(acks[0].accepted());
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_DISPATCHED);
}

TEST(EngineRuns, Resume_RunningRun_FailedPrecondition) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  EXPECT_THAT(h.Resume(run_id),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("is running")));
}

TEST(EngineRuns, Resume_CompletedRun_FailedPrecondition) {
  EngineHarness h;
  std::string run_id = h.Submit(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A"}]})");
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), true, "done");
  EXPECT_THAT(h.Resume(run_id),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("already completed: there is nothing to resume")));
}

TEST(EngineRuns, Resume_UnknownRun_NotFound) {
  EngineHarness h;
  EXPECT_THAT(h.Resume("run-nope"), StatusIs(absl::StatusCode::kNotFound));
}

// ---------------------------------------------------------------------------
// Recovery

TEST(EngineRuns, Recovery_MidRun_DispatchedTaskRequeuedAfterLeaseTimeoutAndRunEndsOnce) {
  EngineHarness h;
  std::string run_id = h.Submit(kDiamond);
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/2);
  std::vector<v1::Assignment> assigned = h.TakeAssignments(w);
  ASSERT_THAT(assigned, SizeIs(2));
  h.Finish(w, assigned[0], true, "alpha");  // a done, b still dispatched
  ASSERT_EQ(h.ReadTaskView(run_id, "b").state(), v1::TASK_STATE_DISPATCHED);

  h.Restart();  // w1's stream died with the old engine
  TestWorker fresh = h.Connect("w2", {"coder"}, /*slots=*/1);
  EXPECT_THAT(h.TakeAssignments(fresh), IsEmpty()) << "b's lease has not expired yet";
  EXPECT_EQ(h.ReadTaskView(run_id, "b").state(), v1::TASK_STATE_DISPATCHED);

  h.Advance(30'001);
  v1::Assignment b = h.OnlyAssignment(fresh);
  EXPECT_EQ(b.task_id(), "b");
  EXPECT_EQ(b.attempt(), 2);
  h.Finish(fresh, b, true, "beta");
  v1::Assignment c = h.OnlyAssignment(fresh);
  EXPECT_EQ(c.prompt(), "C alpha beta");
  h.Finish(fresh, c, true, "gamma");

  v1::Run run = h.ReadRunView(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.output(), "gamma");
  std::vector<v1::RunEvent> events = h.Events(run_id);
  ExpectWellFormedLog(events, run_id);
  EXPECT_EQ(CountFinished(events), 1);
}

TEST(EngineRuns, Recovery_WorkerReconnectsHoldingLease_KeepsIt) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Started(w, a);

  h.Restart();
  v1::HeldTask held;
  held.set_task_id("a");
  held.set_lease_id(a.lease_id());
  TestWorker again = h.Connect("w1", {"coder"}, /*slots=*/0, {held});
  std::vector<v1::ConnectResponse> messages = again.channel->Take();
  ASSERT_THAT(messages, SizeIs(1));
  EXPECT_THAT(messages[0].welcome().revoked_lease_ids(), IsEmpty());
  h.Result(again, a, true, "survived the restart");
  ASSERT_TRUE(EngineHarness::Acks(again.channel->Take()).at(0).accepted());
  EXPECT_EQ(h.ReadTaskView(run_id, "a").output(), "survived the restart");
  h.Credits(again, 1);
  EXPECT_EQ(h.OnlyAssignment(again).task_id(), "b");
}

TEST(EngineRuns, Recovery_WorkerReconnectsWithoutLease_RequeuedAtOnce) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);

  h.Restart();
  TestWorker restarted = h.Restarted(w, {"coder"}, /*slots=*/1);
  v1::Assignment again = h.OnlyAssignment(restarted);
  EXPECT_EQ(again.task_id(), "a");
  EXPECT_EQ(again.attempt(), 2);
}

// The scheduler committed a dispatch and died before the assignment left:
// the same worker process reconnects without it, and the task runs once,
// as attempt 1.
TEST(EngineRuns, Recovery_AssignmentNeverSent_RequeuedWithoutAnAttempt) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  h.OnlyAssignment(w);

  h.Restart();
  TestWorker again = h.Reconnect(w, {"coder"}, /*slots=*/1, {});
  v1::Assignment a = h.OnlyAssignment(again);
  EXPECT_EQ(a.task_id(), "a");
  EXPECT_EQ(a.attempt(), 1);
  EXPECT_EQ(h.ReadTaskView(run_id, "a").attempt(), 1);
}

TEST(EngineRuns, Recovery_RetryingTaskWaitsOutItsBackoff) {
  EngineHarness h;
  std::string run_id = h.Submit(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A", "retries": 1}]})");
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), false, "oops");
  ASSERT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_RETRYING);

  h.Restart();
  TestWorker again = h.Connect("w1", {"coder"});
  EXPECT_THAT(h.TakeAssignments(again), IsEmpty());
  h.Advance(1'000);
  EXPECT_EQ(h.OnlyAssignment(again).attempt(), 2);
}

TEST(EngineRuns, Recovery_ReadyTaskOlderThanSchedulingTimeout_WaitsForWorkersToReconnect) {
  // A task that waited long for a free worker must not fail on restart just
  // because no worker has reconnected yet when the first batch runs.
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  h.Advance(50'000);
  h.Restart();
  h.Advance(20'000);  // 70 s after the task became ready
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_READY);
  TestWorker w = h.Connect("w1", {"coder"});
  EXPECT_EQ(h.OnlyAssignment(w).task_id(), "a");
}

TEST(EngineRuns, Recovery_FinishedRunsStayFinished) {
  EngineHarness h;
  std::string run_id = h.Submit(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A"}]})");
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), true, "done");
  const size_t events = h.Events(run_id).size();
  h.Restart();
  h.RunOnce();
  TestWorker again = h.Connect("w1", {"coder"});
  EXPECT_THAT(h.TakeAssignments(again), IsEmpty());
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(h.Events(run_id).size(), events);
}

// ---------------------------------------------------------------------------
// Ready tasks whose workers went away

TEST(EngineRuns, LastWorkerOfAgentLeaves_QueuedTaskFailsAfterSchedulingTimeout) {
  EngineHarness h;
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/1);
  std::string run_id = h.Submit(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A"},
      {"id": "b", "agent": "coder", "task": "B"}]})");
  h.OnlyAssignment(w);  // a; b waits for a slot
  ASSERT_EQ(h.ReadTaskView(run_id, "b").state(), v1::TASK_STATE_READY);
  h.Disconnect(w);
  h.Advance(60'001);
  v1::Task b = h.ReadTaskView(run_id, "b");
  EXPECT_EQ(b.state(), v1::TASK_STATE_FAILED);
  EXPECT_THAT(b.error(), HasSubstr("no worker offers agent 'coder'"));
}

// ---------------------------------------------------------------------------
// Events

TEST(EngineRuns, Events_SeqsWithoutGapsFromRunStartedToRunFinished) {
  EngineHarness h;
  std::string run_id = h.Submit(kDiamond);
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/2);
  for (const v1::Assignment& a : h.TakeAssignments(w)) h.Finish(w, a, true, a.task_id());
  h.Finish(w, h.OnlyAssignment(w), true, "end");
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);

  std::vector<v1::RunEvent> events = h.Events(run_id);
  ExpectWellFormedLog(events, run_id);
  EXPECT_EQ(CountFinished(events), 1);
  EXPECT_EQ(events.back().run_finished().status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(events.back().run_finished().output(), "end");
  EXPECT_EQ(h.ReadRunView(run_id).last_seq(), events.back().seq());

  // Every task change is in the log, ending with each task completed.
  std::map<std::string, v1::TaskState> last_state;
  for (const v1::RunEvent& event : events) {
    if (event.has_task_change()) {
      last_state[event.task_change().task().task_id()] = event.task_change().task().state();
    }
  }
  EXPECT_THAT(
      last_state,
      ElementsAre(std::pair<const std::string, v1::TaskState>("a", v1::TASK_STATE_COMPLETED),
                  std::pair<const std::string, v1::TaskState>("b", v1::TASK_STATE_COMPLETED),
                  std::pair<const std::string, v1::TaskState>("c", v1::TASK_STATE_COMPLETED)));

  std::vector<v1::RunEvent> tail = h.Events(run_id, events.size() - 2);
  ASSERT_THAT(tail, SizeIs(2));
  EXPECT_EQ(tail[0].seq(), static_cast<int64_t>(events.size() - 1));
}

TEST(EngineRuns, CloseStreams_EndsEveryWorkerStreamAndWatchSayingWhy) {
  class Sink final : public WatchSink {
   public:
    void OnEvents(const EventBatch&) override {}
    void OnClose(const std::string& reason) override { closed = reason; }
    std::string closed;
  };
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  auto sink = std::make_shared<Sink>();
  h.engine().watch_hub().Subscribe(run_id, sink);
  TestWorker w1 = h.Connect("w1", {"coder"});
  TestWorker w2 = h.Connect("w2", {"coder"});
  EXPECT_EQ(w1.channel->closed_reason(), "");

  h.engine().CloseStreams("shutting down");
  h.RunOnce();
  EXPECT_EQ(w1.channel->closed_reason(), "shutting down");
  EXPECT_EQ(w2.channel->closed_reason(), "shutting down");
  EXPECT_EQ(sink->closed, "shutting down");
  // Nothing else changed: the run goes on when workers reconnect.
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_RUNNING);
}

TEST(EngineRuns, Events_WatchersGetCommittedEventsInOrder) {
  class Sink final : public WatchSink {
   public:
    void OnEvents(const EventBatch& events) override {
      for (const v1::RunEvent& event : *events) seqs.push_back(event.seq());
    }
    void OnClose(const std::string&) override {}
    std::vector<int64_t> seqs;
  };
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  auto sink = std::make_shared<Sink>();
  h.engine().watch_hub().Subscribe(run_id, sink);
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), true, "x");
  h.Finish(w, h.OnlyAssignment(w), true, "y");

  std::vector<v1::RunEvent> stored = h.Events(run_id);
  ASSERT_FALSE(sink->seqs.empty());
  int64_t first_live = sink->seqs.front();
  std::vector<int64_t> expected;
  for (const v1::RunEvent& event : stored) {
    if (event.seq() >= first_live) expected.push_back(event.seq());
  }
  EXPECT_EQ(sink->seqs, expected);
}

// A store whose previous process may have lost writes (stop_marker.h).
class LossyStore final : public testing::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  bool MayHaveLostWrites() const override { return true; }
};

// After a restart on a store that may have lost its last writes, an
// unfinished run's events skip ahead: a number a watcher may have seen
// before the loss is never given to another event.
TEST(EngineRuns, Recovery_AfterLostWrites_EventNumbersSkipAheadNeverRepeat) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Started(w, a);
  const int64_t last_before = h.Events(run_id).back().seq();

  LossyStore lossy(h.store());
  h.store_override = &lossy;
  h.Restart();
  v1::HeldTask held;
  held.set_task_id(a.task_id());
  held.set_lease_id(a.lease_id());
  TestWorker again = h.Reconnect(w, {"coder"}, /*slots=*/0, {held});
  h.Result(again, a, true, "done");
  std::vector<v1::RunEvent> events = h.Events(run_id, last_before);
  ASSERT_FALSE(events.empty());
  EXPECT_GE(events.front().seq(), last_before + kSeqGapAfterLostWrites);
  for (size_t i = 1; i < events.size(); ++i) EXPECT_EQ(events[i].seq(), events[i - 1].seq() + 1);
}

}  // namespace
}  // namespace taskboard::engine

namespace taskboard::engine {
namespace {

// What a client sees of a board the moment SubmitRun returns: GetRun lists
// every task, and WatchRun from seq 0 replays run_started, then one
// tasks_created with every task in GetRun's order (the store's key order:
// ids by length first), and no task_change.
TEST(EngineRuns, Submit_Board_GetRunAndEventsShowEveryTaskAtOnce) {
  testing::EngineHarness h;
  const std::string run = h.Submit(R"({"name": "b", "kind": "board", "board": {"tasks": [
      {"id": "t2", "agent": "coder", "task": "two"},
      {"id": "t10", "agent": "coder", "task": "ten"},
      {"id": "t1", "agent": "coder", "task": "one", "priority": 5}]}})");
  const v1::Run view = h.ReadRunView(run);
  EXPECT_EQ(view.tasks_total(), 3);
  std::vector<std::pair<std::string, v1::TaskState>> tasks;
  for (const v1::Task& task : view.tasks()) tasks.emplace_back(task.task_id(), task.state());
  EXPECT_THAT(tasks, ::testing::UnorderedElementsAre(
                         std::pair<std::string, v1::TaskState>("t1", v1::TASK_STATE_READY),
                         std::pair<std::string, v1::TaskState>("t10", v1::TASK_STATE_READY),
                         std::pair<std::string, v1::TaskState>("t2", v1::TASK_STATE_READY)));

  const std::vector<v1::RunEvent> events = h.Events(run);
  std::vector<std::string> seen;
  for (const v1::RunEvent& event : events) {
    if (event.has_run_started()) seen.push_back("run_started");
    if (event.has_task_change()) seen.push_back("task_change");
    if (event.has_tasks_created()) seen.push_back("tasks_created");
    for (const v1::Task& task : event.tasks_created().tasks()) {
      seen.push_back(absl::StrCat(task.task_id(), " ", v1::TaskState_Name(task.state())));
    }
  }
  EXPECT_THAT(seen, ElementsAre("run_started", "tasks_created", "t1 TASK_STATE_READY",
                                "t2 TASK_STATE_READY", "t10 TASK_STATE_READY"));
  // The tasks as announced are the tasks as listed.
  ASSERT_THAT(events, SizeIs(2));
  ASSERT_EQ(events[1].tasks_created().tasks_size(), view.tasks_size());
  for (int i = 0; i < view.tasks_size(); ++i) {
    EXPECT_EQ(events[1].tasks_created().tasks(i).SerializeAsString(),
              view.tasks(i).SerializeAsString());
  }
  for (size_t i = 0; i < events.size(); ++i)
    EXPECT_EQ(events[i].seq(), static_cast<int64_t>(i + 1));
}

}  // namespace
}  // namespace taskboard::engine
