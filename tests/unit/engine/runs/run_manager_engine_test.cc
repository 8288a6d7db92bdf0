// Engine run-level operations: cancel, idempotent submit, resume, and the
// run's event log (its recovery after a restart: run_recovery_engine_test.cc).

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/engine.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/engine/engine_harness.h"
#include "tests/unit/engine/runs/engine_runs.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::CountFinished;
using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::ExpectWellFormedLog;
using ::taskboard::engine::testing::kChain;
using ::taskboard::engine::testing::kDiamond;
using ::taskboard::engine::testing::TestWorker;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

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
