// Engine dispatch over the worker protocol: Hello/Welcome, assignments,
// results and their acks, fencing of stale leases, and worker credits.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/engine.h"
#include "scheduler/engine/runs/run_reader.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::StartsWith;

constexpr char kChain[] = R"({"name": "chain", "phases": [
    {"id": "a", "agent": "coder", "task": "write a haiku"},
    {"id": "b", "agent": "coder", "task": "review: {steps.a.output}", "dependsOn": ["a"]}]})";

constexpr char kThreeIndependent[] = R"({"name": "three", "phases": [
    {"id": "a", "agent": "coder", "task": "A"},
    {"id": "b", "agent": "coder", "task": "B"},
    {"id": "c", "agent": "coder", "task": "C"}]})";

TEST(EngineDispatch, Hello_WelcomeThenAssignmentOfReadyTask) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  ASSERT_FALSE(run_id.empty());
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_READY);

  TestWorker w = h.Connect("w1", {"coder"});
  std::vector<v1::ConnectResponse> messages = w.channel->Take();
  ASSERT_THAT(messages, SizeIs(2));
  ASSERT_TRUE(messages[0].has_welcome());
  EXPECT_EQ(messages[0].welcome().scheduler_id(), "scheduler");
  EXPECT_EQ(messages[0].welcome().lease_timeout_ms(), 30'000);
  EXPECT_EQ(messages[0].welcome().heartbeat_interval_ms(), 5'000);
  EXPECT_THAT(messages[0].welcome().revoked_lease_ids(), IsEmpty());

  ASSERT_TRUE(messages[1].has_assignment());
  const v1::Assignment& assignment = messages[1].assignment();
  EXPECT_EQ(assignment.task_id(), "a");
  EXPECT_EQ(assignment.run_id(), run_id);
  EXPECT_EQ(assignment.root_run_id(), run_id);
  EXPECT_EQ(assignment.attempt(), 1);
  EXPECT_THAT(assignment.lease_id(), StartsWith("l-"));
  EXPECT_EQ(assignment.agent(), "coder");
  EXPECT_EQ(assignment.prompt(), "write a haiku");

  v1::Task task = h.ReadTaskView(run_id, "a");
  EXPECT_EQ(task.state(), v1::TASK_STATE_DISPATCHED);
  EXPECT_EQ(task.worker_id(), "w1");
  EXPECT_EQ(task.attempt(), 1);
}

// A stream that reads the store at the moment the engine sends it something:
// what the worker is told must already be durable.
class StoreCheckingChannel final : public dispatch::WorkerChannel {
 public:
  StoreCheckingChannel(store::Store* store, std::string run_id)
      : store_(store), run_id_(std::move(run_id)) {}
  void Send(v1::ConnectResponse message) override {
    if (message.has_assignment()) {
      assignments.push_back(message.assignment());
      stored_at_send.push_back(StoredState(message.assignment().task_id()));
    }
    if (message.has_result_ack()) {
      stored_at_send.push_back(StoredState(message.result_ack().task_id()));
    }
  }
  void Close(const std::string&) override {}
  v1::TaskState StoredState(const std::string& task_id) {
    absl::StatusOr<v1::GetTaskResponse> task = ReadTask(*store_, run_id_, task_id);
    return task.ok() ? task->task().state() : v1::TASK_STATE_UNSPECIFIED;
  }

  std::vector<v1::Assignment> assignments;
  std::vector<v1::TaskState> stored_at_send;

 private:
  store::Store* store_;
  std::string run_id_;
};

TEST(EngineDispatch, Durability_DispatchAndResultStoredBeforeWorkerIsTold) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  auto channel = std::make_shared<StoreCheckingChannel>(&h.store(), run_id);
  const uint64_t stream = h.engine().NewStreamId();
  v1::Hello hello;
  hello.set_worker_id("w1");
  hello.add_agents()->set_name("coder");
  hello.set_slots(1);
  h.engine().WorkerHello(stream, hello, channel);
  h.RunOnce();
  ASSERT_THAT(channel->assignments, SizeIs(1));
  EXPECT_THAT(channel->stored_at_send, ElementsAre(v1::TASK_STATE_DISPATCHED));

  v1::ConnectRequest message;
  v1::TaskResult& result = *message.mutable_task_result();
  result.set_task_id("a");
  result.set_lease_id(channel->assignments[0].lease_id());
  result.set_success(true);
  result.set_output("done");
  h.engine().WorkerMessage(stream, message);
  h.RunOnce();
  EXPECT_THAT(channel->stored_at_send,
              ElementsAre(v1::TASK_STATE_DISPATCHED, v1::TASK_STATE_COMPLETED));
}

TEST(EngineDispatch, Credits_TwoWorkers_TasksSpreadOverBoth) {
  EngineHarness h;
  TestWorker w1 = h.Connect("w1", {"coder"}, /*slots=*/2);
  TestWorker w2 = h.Connect("w2", {"coder"}, /*slots=*/2);
  h.Submit(kThreeIndependent);
  size_t to_w1 = h.TakeAssignments(w1).size();
  size_t to_w2 = h.TakeAssignments(w2).size();
  EXPECT_EQ(to_w1 + to_w2, 3u);
  EXPECT_GE(to_w1, 1u);
  EXPECT_GE(to_w2, 1u);
}

TEST(EngineDispatch, Hello_BeforeSubmit_AssignsAsSoonAsTaskIsReady) {
  EngineHarness h;
  TestWorker w = h.Connect("w1", {"coder"});
  EXPECT_THAT(EngineHarness::Assignments(w.channel->Take()), IsEmpty());
  std::string run_id = h.Submit(kChain);
  v1::Assignment a = h.OnlyAssignment(w);
  EXPECT_EQ(a.task_id(), "a");
  EXPECT_EQ(a.run_id(), run_id);
}

TEST(EngineDispatch, Result_AcceptedAndNextTaskAssigned) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);

  h.Started(w, a);
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_RUNNING);

  h.Result(w, a, true, "old pond");
  std::vector<v1::ConnectResponse> messages = w.channel->Take();
  std::vector<v1::ResultAck> acks = EngineHarness::Acks(messages);
  ASSERT_THAT(acks, SizeIs(1));
  EXPECT_TRUE(acks[0].accepted());
  EXPECT_EQ(acks[0].task_id(), "a");
  EXPECT_EQ(acks[0].lease_id(), a.lease_id());
  EXPECT_THAT(EngineHarness::Assignments(messages), IsEmpty()) << "the slot is still taken";
  v1::Task done = h.ReadTaskView(run_id, "a");
  EXPECT_EQ(done.state(), v1::TASK_STATE_COMPLETED);
  EXPECT_EQ(done.output(), "old pond");

  h.Credits(w, 1);
  v1::Assignment b = h.OnlyAssignment(w);
  EXPECT_EQ(b.task_id(), "b");
  EXPECT_EQ(b.prompt(), "review: old pond");
  EXPECT_NE(b.lease_id(), a.lease_id());

  h.Finish(w, b, true, "nice");
  v1::Run run = h.ReadRunView(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.output(), "nice");
  EXPECT_EQ(run.usage().output_tokens(), 20);
}

TEST(EngineDispatch, Result_UnknownLease_RejectedWithoutStateChange) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  const size_t events_before = h.Events(run_id).size();

  v1::Assignment forged = a;
  forged.set_lease_id("l-0000000000000000");
  h.Result(w, forged, true, "forged");
  std::vector<v1::ResultAck> acks = EngineHarness::Acks(w.channel->Take());
  ASSERT_THAT(acks, SizeIs(1));
  EXPECT_FALSE(acks[0].accepted());
  EXPECT_THAT(acks[0].reason(), HasSubstr("is no longer current for task 'a'"));

  v1::Task task = h.ReadTaskView(run_id, "a");
  EXPECT_EQ(task.state(), v1::TASK_STATE_DISPATCHED);
  EXPECT_EQ(task.output(), "");
  EXPECT_EQ(h.Events(run_id).size(), events_before);

  // The real lease still works.
  h.Result(w, a, true, "real");
  EXPECT_EQ(h.ReadTaskView(run_id, "a").output(), "real");
}

TEST(EngineDispatch, Result_LeaseOfAnotherTask_Rejected) {
  EngineHarness h;
  std::string run_id = h.Submit(kThreeIndependent);
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/2);
  std::vector<v1::Assignment> assigned = h.TakeAssignments(w);
  ASSERT_THAT(assigned, SizeIs(2));
  v1::Assignment crossed = assigned[0];
  crossed.set_task_id(assigned[1].task_id());
  h.Result(w, crossed, true, "crossed");
  std::vector<v1::ResultAck> acks = EngineHarness::Acks(w.channel->Take());
  ASSERT_THAT(acks, SizeIs(1));
  EXPECT_FALSE(acks[0].accepted());
  EXPECT_EQ(h.ReadTaskView(run_id, assigned[1].task_id()).state(), v1::TASK_STATE_DISPATCHED);
}

TEST(EngineDispatch, Result_SentTwice_SecondRejected) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Result(w, a, true, "first");
  h.Result(w, a, true, "second");
  std::vector<v1::ResultAck> acks = EngineHarness::Acks(w.channel->Take());
  ASSERT_THAT(acks, SizeIs(2));
  EXPECT_TRUE(acks[0].accepted());
  EXPECT_FALSE(acks[1].accepted());
  EXPECT_EQ(h.ReadTaskView(run_id, "a").output(), "first");
}

TEST(EngineDispatch, Credits_OneSlot_OneAssignmentAtATime) {
  EngineHarness h;
  std::string run_id = h.Submit(kThreeIndependent);
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/1);
  v1::Assignment first = h.OnlyAssignment(w);
  EXPECT_EQ(first.task_id(), "a");

  h.Started(w, first);
  h.Result(w, first, true, "A");
  EXPECT_THAT(h.TakeAssignments(w), IsEmpty());
  EXPECT_EQ(h.ReadTaskView(run_id, "b").state(), v1::TASK_STATE_READY);

  h.Credits(w, 1);
  v1::Assignment second = h.OnlyAssignment(w);
  EXPECT_EQ(second.task_id(), "b");
  EXPECT_EQ(h.ReadTaskView(run_id, "c").state(), v1::TASK_STATE_READY);
}

TEST(EngineDispatch, Credits_MoreSlots_AssignsUpToTheGrant) {
  EngineHarness h;
  h.Submit(kThreeIndependent);
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/2);
  std::vector<v1::Assignment> assigned = h.TakeAssignments(w);
  ASSERT_THAT(assigned, SizeIs(2));
  EXPECT_EQ(assigned[0].task_id(), "a");
  EXPECT_EQ(assigned[1].task_id(), "b");
}

// A worker that reconnects while tasks whose leases were revoked still run
// declares fewer free slots than it has; its credits as they finish are
// still honoured up to what the process declared first.
TEST(EngineDispatch, Credits_AfterAReconnectWithBusySlots_UpToWhatTheProcessDeclaredFirst) {
  EngineHarness h;
  h.Submit(kThreeIndependent);
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/2);
  ASSERT_THAT(h.TakeAssignments(w), SizeIs(2));
  h.Disconnect(w);
  TestWorker again = h.Reconnect(w, {"coder"}, /*slots=*/0, {});  // both slots still busy
  h.TakeAssignments(again);
  h.Credits(again, 2);
  EXPECT_THAT(h.TakeAssignments(again), Not(IsEmpty())) << "its credits were capped at 0";
}

// A worker that declared one slot and then claims five more (a confused or
// hostile worker) is still given one task at a time.
TEST(EngineDispatch, Credits_PastTheDeclaredSlots_Capped) {
  EngineHarness h;
  h.Submit(kThreeIndependent);
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/1);
  h.OnlyAssignment(w);
  h.Credits(w, 5);
  EXPECT_THAT(h.TakeAssignments(w), SizeIs(1)) << "one slot: one more credit, not five";
  h.Credits(w, -3);  // ignored
  EXPECT_THAT(h.TakeAssignments(w), IsEmpty());
}

TEST(EngineDispatch, Agents_TaskGoesOnlyToWorkerOfferingItsAgent) {
  EngineHarness h;
  std::string run_id = h.Submit(R"({"name": "f", "phases": [
      {"id": "r", "agent": "critic", "task": "review"}]})");
  TestWorker coder = h.Connect("w-coder", {"coder"});
  EXPECT_THAT(h.TakeAssignments(coder), IsEmpty());
  TestWorker critic = h.Connect("w-critic", {"critic", "coder"});
  v1::Assignment a = h.OnlyAssignment(critic);
  EXPECT_EQ(a.task_id(), "r");
  EXPECT_EQ(h.ReadTaskView(run_id, "r").worker_id(), "w-critic");
}

TEST(EngineDispatch, Draining_WorkerGetsNoNewTasks) {
  EngineHarness h;
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/1);
  v1::ConnectRequest draining;
  draining.mutable_draining()->set_grace_ms(1000);
  h.Send(w, draining);
  std::string run_id = h.Submit(kChain);
  EXPECT_THAT(h.TakeAssignments(w), IsEmpty());
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_READY);
}

TEST(EngineDispatch, TaskReturned_RequeuedWithoutUsingAnAttempt) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  v1::ConnectRequest returned;
  returned.mutable_task_returned()->set_task_id(a.task_id());
  returned.mutable_task_returned()->set_lease_id(a.lease_id());
  returned.mutable_task_returned()->set_reason("draining");
  h.Send(w, returned);
  EXPECT_EQ(h.ReadTaskView(run_id, "a").state(), v1::TASK_STATE_READY);

  TestWorker other = h.Connect("w2", {"coder"});
  v1::Assignment again = h.OnlyAssignment(other);
  EXPECT_EQ(again.task_id(), "a");
  EXPECT_EQ(again.attempt(), 1);
}

TEST(EngineDispatch, BoardPriority_HigherPriorityReadyTaskDispatchedFirst) {
  EngineHarness h;
  h.Submit(R"({"name": "b", "kind": "board", "board": {"tasks": [
      {"id": "low", "agent": "a", "task": "l", "priority": 1},
      {"id": "high", "agent": "a", "task": "h", "priority": 9}]}})");
  TestWorker w = h.Connect("w1", {"a"}, /*slots=*/1);
  EXPECT_EQ(h.OnlyAssignment(w).task_id(), "high");
}

TEST(EngineDispatch, OutputDelta_RecordedAsRunEventUnderCurrentLease) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  v1::ConnectRequest delta;
  delta.mutable_output_delta()->set_task_id("a");
  delta.mutable_output_delta()->set_lease_id(a.lease_id());
  delta.mutable_output_delta()->set_text("old ");
  h.Send(w, delta);
  delta.mutable_output_delta()->set_lease_id("l-stale");
  h.Send(w, delta);
  int deltas = 0;
  for (const v1::RunEvent& event : h.Events(run_id)) {
    if (!event.has_output_delta()) continue;
    ++deltas;
    EXPECT_EQ(event.output_delta().text(), "old ");
  }
  EXPECT_EQ(deltas, 1);
}

TEST(EngineDispatch, Submit_EveryKindStartsRunning) {
  EngineHarness h;
  absl::StatusOr<SubmitResult> result = h.TrySubmit(R"({"name": "s", "kind": "supervisor",
      "supervisor": {"goal": "g", "plannerAgent": "p", "workerAgent": "w",
                     "reviewerAgent": "r"}})");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(h.Status(result->run_id), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(h.ReadTaskView(result->run_id, "planner").state(), v1::TASK_STATE_READY);
}

}  // namespace
}  // namespace taskboard::engine
