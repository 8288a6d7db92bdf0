// The worker session against a scripted gateway
// (tests/unit/worker/session/fake_gateway.h): the protocol of
// worker/session/session.h, message by message, with real agents (noop and
// /bin/sh command agents).

#include "worker/session/session.h"

#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/worker/session/session_harness.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::worker::testing::FakeStream;
using ::taskboard::worker::testing::SessionHarness;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class SessionTest : public SessionHarness {
 protected:
  void SetUp() override {
    std::ofstream(dir_.path() / "sleeper.yaml")
        << "command: [/bin/sh, -c, 'echo started; exec sleep 100']\n";
    std::ofstream(dir_.path() / "talker.yaml")
        << "command: [/bin/sh, -c, 'echo one; sleep 0.3; echo two']\n";
    ASSERT_NO_FATAL_FAILURE(LoadAgents({.kill_grace = absl::Milliseconds(200)}));
  }

  void Start(int slots = 2) {
    SessionOptions options;
    options.slots = slots;
    options.version = "test";
    options.output_interval = absl::Milliseconds(50);
    StartSession(options);
  }
};

TEST_F(SessionTest, Hello_AdvertisesAgentsFreeSlotsAndIdentity) {
  Start(/*slots=*/3);
  v1::Hello hello;
  Welcome(0, {}, &hello);
  EXPECT_EQ(hello.worker_id(), "w1");
  EXPECT_EQ(hello.incarnation(), session_->incarnation());
  EXPECT_FALSE(hello.incarnation().empty());
  EXPECT_EQ(hello.slots(), 3);
  EXPECT_EQ(hello.version(), "test");
  std::vector<std::string> agents;
  for (const v1::AgentInfo& info : hello.agents()) agents.push_back(info.name());
  EXPECT_THAT(agents, ElementsAre("noop", "sleeper", "talker"));
  EXPECT_THAT(hello.held_tasks(), IsEmpty());
}

TEST_F(SessionTest, Assignment_StartedResultThenCredit) {
  Start();
  FakeStream* stream = Welcome(0);
  stream->Send(Assign("noop", "l1", "echo this"));
  EXPECT_EQ(Expect(stream, v1::ConnectRequest::kTaskStarted).task_started().lease_id(), "l1");
  v1::TaskResult result = Expect(stream, v1::ConnectRequest::kTaskResult).task_result();
  EXPECT_EQ(result.task_id(), "task-l1");
  EXPECT_EQ(result.lease_id(), "l1");
  EXPECT_TRUE(result.success());
  EXPECT_EQ(result.output(), "echo this");
  EXPECT_EQ(Expect(stream, v1::ConnectRequest::kCredits).credits().slots(), 1);
}

TEST_F(SessionTest, CommandOutput_StreamedAsDeltasBeforeTheResult) {
  Start();
  FakeStream* stream = Welcome(0);
  stream->Send(Assign("talker", "l1"));
  Expect(stream, v1::ConnectRequest::kTaskStarted);
  std::string streamed;
  absl::optional<v1::ConnectRequest> message;
  while ((message = stream->Next()) && message->has_output_delta()) {
    EXPECT_EQ(message->output_delta().lease_id(), "l1");
    streamed += message->output_delta().text();
  }
  EXPECT_EQ(streamed, "one\ntwo\n");
  ASSERT_TRUE(message.has_value());
  ASSERT_TRUE(message->has_task_result()) << message->DebugString();
  EXPECT_EQ(message->task_result().output(), "one\ntwo\n");
}

TEST_F(SessionTest, UnknownAgent_FailsTheTaskAndReturnsTheCredit) {
  Start();
  FakeStream* stream = Welcome(0);
  stream->Send(Assign("ghost", "l1"));
  v1::TaskResult result = Expect(stream, v1::ConnectRequest::kTaskResult).task_result();
  EXPECT_FALSE(result.success());
  EXPECT_THAT(result.error(), HasSubstr("this worker has no agent 'ghost'"));
  Expect(stream, v1::ConnectRequest::kCredits);
}

TEST_F(SessionTest, Cancel_KillsTheAgentAndReportsCancelled) {
  Start();
  FakeStream* stream = Welcome(0);
  stream->Send(Assign("sleeper", "l1"));
  Expect(stream, v1::ConnectRequest::kTaskStarted);
  EXPECT_EQ(Expect(stream, v1::ConnectRequest::kOutputDelta).output_delta().text(), "started\n");
  v1::ConnectResponse cancel;
  cancel.mutable_cancel()->set_task_id("task-l1");
  cancel.mutable_cancel()->set_lease_id("l1");
  cancel.mutable_cancel()->set_reason("run cancelled");
  stream->Send(cancel);
  v1::TaskResult result = Expect(stream, v1::ConnectRequest::kTaskResult).task_result();
  EXPECT_FALSE(result.success());
  EXPECT_EQ(result.error(), "cancelled: run cancelled");
  Expect(stream, v1::ConnectRequest::kCredits);
}

TEST_F(SessionTest, Heartbeat_ListsHeldLeasesAtTheWelcomedInterval) {
  Start();
  FakeStream* stream = Welcome(0, {}, nullptr, /*heartbeat_ms=*/50);
  stream->Send(Assign("sleeper", "l1"));
  Expect(stream, v1::ConnectRequest::kTaskStarted);
  // The first heartbeat may predate the assignment; one soon lists it.
  bool listed = false;
  for (int i = 0; i < 20 && !listed; ++i) {
    absl::optional<v1::ConnectRequest> message = stream->Next(/*heartbeats=*/true);
    ASSERT_TRUE(message.has_value());
    if (message->has_heartbeat()) {
      listed =
          message->heartbeat().lease_ids().size() == 1 && message->heartbeat().lease_ids(0) == "l1";
    }
  }
  EXPECT_TRUE(listed);
}

TEST_F(SessionTest, Reconnect_ResendsUnackedResultsUntilAcked) {
  Start();
  FakeStream* first = Welcome(0);
  first->Send(Assign("noop", "l1"));
  Expect(first, v1::ConnectRequest::kTaskStarted);
  Expect(first, v1::ConnectRequest::kTaskResult);
  first->End(grpc::Status(grpc::StatusCode::UNAVAILABLE, "scheduler restarting"));

  v1::Hello hello;
  FakeStream* second = Welcome(1, {}, &hello);
  EXPECT_EQ(hello.incarnation(), session_->incarnation());  // same process
  EXPECT_EQ(hello.slots(), 2);
  // Finished but not acknowledged: still held, so the scheduler keeps the
  // lease for the result that follows the Welcome.
  ASSERT_EQ(hello.held_tasks_size(), 1);
  EXPECT_EQ(hello.held_tasks(0).lease_id(), "l1");
  EXPECT_EQ(hello.held_tasks(0).task_id(), "task-l1");
  EXPECT_EQ(Expect(second, v1::ConnectRequest::kTaskResult).task_result().lease_id(), "l1");
  second->Send(Ack("l1"));
  // Once acked it is not sent again: the next connection starts with the
  // next assignment.
  second->Send(Assign("noop", "l2"));
  Expect(second, v1::ConnectRequest::kTaskStarted);
  Expect(second, v1::ConnectRequest::kTaskResult);
  second->Send(Ack("l2"));
  Expect(second, v1::ConnectRequest::kCredits);
  second->End(grpc::Status(grpc::StatusCode::UNAVAILABLE, "again"));
  FakeStream* third = Welcome(2);
  third->Send(Assign("noop", "l3"));
  Expect(third, v1::ConnectRequest::kTaskStarted);
}

TEST_F(SessionTest, Reconnect_HeldTaskKeepsRunningUntilItsLeaseIsRevoked) {
  Start();
  FakeStream* first = Welcome(0);
  first->Send(Assign("sleeper", "l1"));
  Expect(first, v1::ConnectRequest::kTaskStarted);
  first->End(grpc::Status(grpc::StatusCode::UNAVAILABLE, "network blip"));

  v1::Hello hello;
  FakeStream* second = gateway_.WaitForStream(1);
  ASSERT_NE(second, nullptr);
  absl::optional<v1::ConnectRequest> message = second->Next();
  ASSERT_TRUE(message.has_value() && message->has_hello());
  ASSERT_EQ(message->hello().held_tasks_size(), 1);
  EXPECT_EQ(message->hello().held_tasks(0).lease_id(), "l1");
  EXPECT_EQ(message->hello().slots(), 1);  // one of two is busy

  v1::ConnectResponse welcome;
  welcome.mutable_welcome()->add_revoked_lease_ids("l1");
  second->Send(welcome);
  // Revoked: the agent is stopped, no result is reported, the slot frees.
  // (Its "started" may land on this stream when the agent was slow to start.)
  Expect(second, v1::ConnectRequest::kCredits, /*skip_deltas=*/true);
}

TEST_F(SessionTest, DrainFromScheduler_ReturnsNewWorkAndExpiredTasksThenCloses) {
  Start();
  FakeStream* stream = Welcome(0);
  stream->Send(Assign("sleeper", "l1"));
  Expect(stream, v1::ConnectRequest::kTaskStarted);
  Expect(stream, v1::ConnectRequest::kOutputDelta);
  v1::ConnectResponse drain;
  drain.mutable_drain()->set_grace_ms(300);
  stream->Send(drain);
  EXPECT_EQ(Expect(stream, v1::ConnectRequest::kDraining).draining().grace_ms(), 300);

  stream->Send(Assign("noop", "l2"));
  v1::TaskReturned returned = Expect(stream, v1::ConnectRequest::kTaskReturned).task_returned();
  EXPECT_EQ(returned.lease_id(), "l2");
  EXPECT_EQ(returned.reason(), "worker draining");

  returned = Expect(stream, v1::ConnectRequest::kTaskReturned).task_returned();
  EXPECT_EQ(returned.lease_id(), "l1");
  EXPECT_EQ(returned.reason(), "worker draining: grace period expired");
  stream->Send(Ack("l1"));
  EXPECT_TRUE(stream->WaitReadsDone());  // WritesDone: no credits while draining
  stream->End();
  run_.join();
  done_.store(true);
  session_.reset();
  EXPECT_THAT(status_, IsOk());
}

TEST_F(SessionTest, DrainFromSignal_WaitsForRunningTasksToFinish) {
  Start();
  FakeStream* stream = Welcome(0);
  stream->Send(Assign("talker", "l1"));
  Expect(stream, v1::ConnectRequest::kTaskStarted);
  session_->Drain(absl::Seconds(30), "received SIGTERM");
  EXPECT_EQ(
      Expect(stream, v1::ConnectRequest::kDraining, /*skip_deltas=*/true).draining().grace_ms(),
      30000);
  absl::optional<v1::ConnectRequest> message;
  while ((message = stream->Next()) && message->has_output_delta()) {
  }
  ASSERT_TRUE(message.has_value());
  ASSERT_TRUE(message->has_task_result());  // finished within the grace period
  EXPECT_TRUE(message->task_result().success());
  stream->Send(Ack("l1"));
  EXPECT_TRUE(stream->WaitReadsDone());
  stream->End();
  run_.join();
  done_.store(true);
  session_.reset();
  EXPECT_THAT(status_, IsOk());
}

TEST_F(SessionTest, StreamFailsRepeatedly_KeepsReconnecting) {
  Start();
  for (size_t i = 0; i < 3; ++i) {
    FakeStream* stream = gateway_.WaitForStream(i);
    ASSERT_NE(stream, nullptr);
    stream->End(grpc::Status(grpc::StatusCode::UNAVAILABLE, "not ready"));
  }
  FakeStream* stream = Welcome(3);
  stream->Send(Assign("noop", "l1"));
  Expect(stream, v1::ConnectRequest::kTaskStarted);
}

}  // namespace
}  // namespace taskboard::worker
