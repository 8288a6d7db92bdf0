// A worker session with a prefetch queue (SessionOptions::prefetch) against
// the scripted gateway: it offers its slots plus its queue, starts a queued
// assignment the moment a slot frees (no new dispatch), and ends a queued
// one without running it when it is cancelled, revoked, or still queued
// when a drain's grace period expires.

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/worker/session/session_harness.h"
#include "worker/session/session.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::worker::testing::FakeStream;
using ::taskboard::worker::testing::SessionHarness;

constexpr char kGraceExpired[] = "worker draining: grace period expired";

class SessionPrefetchTest : public SessionHarness {
 protected:
  void SetUp() override {
    // "gated" notes that it ran (ran-<task id>), then waits for the test to
    // release it (release-<task id>).
    std::ofstream(dir_.path() / "gated.yaml")
        << "command: [/bin/sh, -c, 'touch \"" << dir_.path().string()
        << "/ran-$TASKBOARD_TASK_ID\"; while [ ! -e \"" << dir_.path().string()
        << "/release-$TASKBOARD_TASK_ID\" ]; do sleep 0.02; done; echo \"$TASKBOARD_TASK_ID "
           "done\"']\n";
    ASSERT_NO_FATAL_FAILURE(LoadAgents({.kill_grace = absl::Milliseconds(200)}));
    SessionOptions options;
    options.slots = 1;
    options.prefetch = 2;
    options.version = "test";
    StartSession(options);
  }

  // Lets the gated task of `lease` finish (or run straight through).
  void Release(const std::string& lease) {
    std::ofstream(dir_.path() / ("release-task-" + lease)) << "";
  }
  bool Ran(const std::string& lease) {
    return std::filesystem::exists(dir_.path() / ("ran-task-" + lease));
  }

  // The next message skipping output deltas: the task's result, which must
  // be a success.
  static void ExpectSucceeded(FakeStream* stream, const std::string& lease) {
    v1::TaskResult result =
        Expect(stream, v1::ConnectRequest::kTaskResult, /*skip_deltas=*/true).task_result();
    EXPECT_EQ(result.lease_id(), lease);
    EXPECT_TRUE(result.success()) << result.error();
  }

  static void ExpectStarted(FakeStream* stream, const std::string& lease) {
    EXPECT_EQ(Expect(stream, v1::ConnectRequest::kTaskStarted).task_started().lease_id(), lease);
  }

  // A fourth assignment is refused at once (every place is taken) and so
  // marks a point in the stream: whatever the earlier assignments caused is
  // already sent.
  static void ExpectRefusedAsFull(FakeStream* stream, const std::string& lease) {
    stream->Send(Assign("gated", lease));
    v1::TaskReturned returned = Expect(stream, v1::ConnectRequest::kTaskReturned).task_returned();
    EXPECT_EQ(returned.lease_id(), lease);
    EXPECT_EQ(returned.reason(), "worker has no free slot (it offered none)");
  }

  // After a drain: acks the final reports, then waits for the session to
  // close its stream and return.
  void ExpectClosesAfterAcks(FakeStream* stream, std::initializer_list<std::string> leases) {
    for (const std::string& lease : leases) stream->Send(Ack(lease));
    EXPECT_TRUE(stream->WaitReadsDone());
    stream->End();
    run_.join();
    done_.store(true);
    session_.reset();
    EXPECT_THAT(status_, IsOk());
  }

  static v1::ConnectResponse Cancel(const std::string& lease, const std::string& reason) {
    v1::ConnectResponse message;
    message.mutable_cancel()->set_task_id("task-" + lease);
    message.mutable_cancel()->set_lease_id(lease);
    message.mutable_cancel()->set_reason(reason);
    return message;
  }

  static v1::ConnectResponse Drain(int64_t grace_ms) {
    v1::ConnectResponse message;
    message.mutable_drain()->set_grace_ms(grace_ms);
    return message;
  }
};

TEST_F(SessionPrefetchTest, Hello_OffersSlotsPlusQueueAndSaysHowManyAreQueue) {
  v1::Hello hello;
  Welcome(0, {}, &hello);
  EXPECT_EQ(hello.slots(), 3);
  EXPECT_EQ(hello.prefetch(), 2);
  EXPECT_TRUE(hello.accepts_batches());
}

TEST_F(SessionPrefetchTest, ThreeAssignments_OneRunsTheOthersStartInTurnWithoutNewDispatch) {
  FakeStream* stream = Welcome(0);
  for (const char* lease : {"l1", "l2", "l3"}) stream->Send(Assign("gated", lease));
  ExpectStarted(stream, "l1");
  // Nothing for l2 or l3 before the refusal: they wait in the queue.
  ExpectRefusedAsFull(stream, "l4");
  EXPECT_FALSE(Ran("l2"));
  EXPECT_FALSE(Ran("l3"));

  Release("l1");
  ExpectSucceeded(stream, "l1");
  EXPECT_EQ(Expect(stream, v1::ConnectRequest::kCredits).credits().slots(), 1);
  ExpectStarted(stream, "l2");  // no assignment came in between
  EXPECT_FALSE(Ran("l3"));

  Release("l2");
  ExpectSucceeded(stream, "l2");
  Expect(stream, v1::ConnectRequest::kCredits);
  ExpectStarted(stream, "l3");
  Release("l3");
  ExpectSucceeded(stream, "l3");
  Expect(stream, v1::ConnectRequest::kCredits);
}

TEST_F(SessionPrefetchTest, QueuedAssignments_HeldAcrossAReconnect) {
  FakeStream* first = Welcome(0);
  for (const char* lease : {"l1", "l2", "l3"}) first->Send(Assign("gated", lease));
  ExpectStarted(first, "l1");
  ExpectRefusedAsFull(first, "l4");
  first->End(grpc::Status(grpc::StatusCode::UNAVAILABLE, "network blip"));

  v1::Hello hello;
  Welcome(1, {}, &hello);
  std::map<std::string, std::string> held;
  for (const v1::HeldTask& task : hello.held_tasks()) held[task.lease_id()] = task.task_id();
  EXPECT_EQ(held, (std::map<std::string, std::string>{
                      {"l1", "task-l1"}, {"l2", "task-l2"}, {"l3", "task-l3"}}));
  EXPECT_EQ(hello.slots(), 0);
  EXPECT_EQ(hello.prefetch(), 2);
}

TEST_F(SessionPrefetchTest, CancelOfAQueuedAssignment_ReportsCancelledWithoutRunningIt) {
  FakeStream* stream = Welcome(0);
  stream->Send(Assign("gated", "l1"));
  stream->Send(Assign("gated", "l2"));
  ExpectStarted(stream, "l1");

  stream->Send(Cancel("l2", "run cancelled"));
  v1::TaskResult result = Expect(stream, v1::ConnectRequest::kTaskResult).task_result();
  EXPECT_EQ(result.lease_id(), "l2");
  EXPECT_EQ(result.task_id(), "task-l2");
  EXPECT_FALSE(result.success());
  EXPECT_EQ(result.error(), "cancelled: run cancelled");
  EXPECT_EQ(Expect(stream, v1::ConnectRequest::kCredits).credits().slots(), 1);

  // l1 still runs; when it ends nothing else starts.
  Release("l1");
  ExpectSucceeded(stream, "l1");
  Expect(stream, v1::ConnectRequest::kCredits);
  stream->Send(Assign("gated", "l3"));
  ExpectStarted(stream, "l3");  // not l2
  EXPECT_FALSE(Ran("l2"));
  Release("l3");
}

TEST_F(SessionPrefetchTest, Drain_QueuedAssignmentsRunWithinTheGracePeriod) {
  FakeStream* stream = Welcome(0);
  for (const char* lease : {"l1", "l2", "l3"}) stream->Send(Assign("gated", lease));
  ExpectStarted(stream, "l1");
  stream->Send(Drain(/*grace_ms=*/60'000));
  EXPECT_EQ(Expect(stream, v1::ConnectRequest::kDraining).draining().grace_ms(), 60'000);

  Release("l2");
  Release("l3");
  Release("l1");
  // Each queued one starts as the slot frees; no credits while draining.
  ExpectSucceeded(stream, "l1");
  ExpectStarted(stream, "l2");
  ExpectSucceeded(stream, "l2");
  ExpectStarted(stream, "l3");
  ExpectSucceeded(stream, "l3");
  ExpectClosesAfterAcks(stream, {"l1", "l2", "l3"});
}

TEST_F(SessionPrefetchTest, Drain_GraceExpires_QueuedAssignmentsReturnedWithoutRunning) {
  FakeStream* stream = Welcome(0);
  for (const char* lease : {"l1", "l2", "l3"}) stream->Send(Assign("gated", lease));
  ExpectStarted(stream, "l1");
  stream->Send(Drain(/*grace_ms=*/200));
  Expect(stream, v1::ConnectRequest::kDraining);

  // l1 never finishes on its own: when the grace period ends it is stopped
  // and every lease goes back.
  std::map<std::string, std::string> returned;
  while (returned.size() < 3) {
    absl::optional<v1::ConnectRequest> message = stream->Next();
    ASSERT_TRUE(message.has_value()) << "returned so far: " << returned.size();
    if (message->has_output_delta()) continue;
    ASSERT_TRUE(message->has_task_returned()) << message->DebugString();
    returned[message->task_returned().lease_id()] = message->task_returned().reason();
  }
  EXPECT_EQ(returned, (std::map<std::string, std::string>{
                          {"l1", kGraceExpired}, {"l2", kGraceExpired}, {"l3", kGraceExpired}}));
  EXPECT_FALSE(Ran("l2"));
  EXPECT_FALSE(Ran("l3"));
  ExpectClosesAfterAcks(stream, {"l1", "l2", "l3"});
}

TEST_F(SessionPrefetchTest, WelcomeRevokingAQueuedLease_FreesItsPlaceWithoutAReport) {
  FakeStream* first = Welcome(0);
  for (const char* lease : {"l1", "l2", "l3"}) first->Send(Assign("gated", lease));
  ExpectStarted(first, "l1");
  ExpectRefusedAsFull(first, "l4");  // l2 and l3 are queued
  first->End(grpc::Status(grpc::StatusCode::UNAVAILABLE, "scheduler restarting"));

  v1::Hello hello;
  FakeStream* second = Welcome(1, /*revoked=*/{"l2"}, &hello);
  ASSERT_EQ(hello.held_tasks_size(), 3);
  // The place frees: a credit, and no result or return for l2.
  EXPECT_EQ(Expect(second, v1::ConnectRequest::kCredits).credits().slots(), 1);

  // l3 is next in the queue; l2 is gone from it.
  Release("l1");
  ExpectSucceeded(second, "l1");
  Expect(second, v1::ConnectRequest::kCredits);
  ExpectStarted(second, "l3");
  Release("l3");
  ExpectSucceeded(second, "l3");
  Expect(second, v1::ConnectRequest::kCredits);
  second->Send(Assign("gated", "l5"));
  ExpectStarted(second, "l5");
  EXPECT_FALSE(Ran("l2"));
  Release("l5");
}

}  // namespace
}  // namespace taskboard::worker
