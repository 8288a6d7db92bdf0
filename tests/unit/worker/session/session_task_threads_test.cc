// How a worker session gives its tasks threads (worker/session/session.h,
// "Threads"), against the scripted gateway: a task whose slot frees starts
// the next queued assignment on its own thread, so a task blocked in another
// slot never delays a queued task's start, and neither does a queued task
// that blocks in turn; the messages of a batch are handled in order, the
// routine ones (assignments, acks) together and the others between them.

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/worker/session/session_harness.h"
#include "worker/session/session.h"

namespace taskboard::worker {
namespace {

using ::taskboard::worker::testing::FakeStream;
using ::taskboard::worker::testing::SessionHarness;

class SessionTaskThreadsTest : public SessionHarness {
 protected:
  void SetUp() override {
    // "gated" waits for the test to release it (release-<task id>).
    std::ofstream(dir_.path() / "gated.yaml")
        << "command: [/bin/sh, -c, 'while [ ! -e \"" << dir_.path().string()
        << "/release-$TASKBOARD_TASK_ID\" ]; do sleep 0.02; done; echo \"$TASKBOARD_TASK_ID "
           "done\"']\n";
    ASSERT_NO_FATAL_FAILURE(LoadAgents({.kill_grace = absl::Milliseconds(200)}));
  }

  void Start(int slots, int prefetch) {
    SessionOptions options;
    options.slots = slots;
    options.prefetch = prefetch;
    options.version = "test";
    StartSession(options);
  }

  void Release(const std::string& lease) {
    std::ofstream(dir_.path() / ("release-task-" + lease)) << "";
  }

  static void ExpectStarted(FakeStream* stream, const std::string& lease) {
    EXPECT_EQ(Expect(stream, v1::ConnectRequest::kTaskStarted).task_started().lease_id(), lease);
  }

  // The task's result (a success) and the credit its slot frees.
  static void ExpectFinished(FakeStream* stream, const std::string& lease) {
    v1::TaskResult result =
        Expect(stream, v1::ConnectRequest::kTaskResult, /*skip_deltas=*/true).task_result();
    EXPECT_EQ(result.lease_id(), lease);
    EXPECT_TRUE(result.success()) << result.error();
    EXPECT_EQ(Expect(stream, v1::ConnectRequest::kCredits).credits().slots(), 1);
  }

  static v1::ConnectResponse Batch(std::initializer_list<v1::ConnectResponse> messages) {
    v1::ConnectResponse batch;
    for (const v1::ConnectResponse& message : messages) {
      *batch.mutable_batch()->add_messages() = message;
    }
    return batch;
  }
};

TEST_F(SessionTaskThreadsTest, QueuedTasks_RunWhileAnotherSlotsTaskStaysBlocked) {
  Start(/*slots=*/2, /*prefetch=*/2);
  FakeStream* stream = Welcome(0);
  // l1 and l2 take the slots and block; l3 and l4 wait in the queue.
  stream->Send(Batch(
      {Assign("gated", "l1"), Assign("gated", "l2"), Assign("noop", "l3"), Assign("noop", "l4")}));
  ExpectStarted(stream, "l1");
  ExpectStarted(stream, "l2");

  // l2's slot frees: l3, then l4, run in it, while l1 still blocks.
  Release("l2");
  ExpectFinished(stream, "l2");
  ExpectStarted(stream, "l3");
  ExpectFinished(stream, "l3");
  ExpectStarted(stream, "l4");
  ExpectFinished(stream, "l4");

  Release("l1");
  ExpectFinished(stream, "l1");
}

TEST_F(SessionTaskThreadsTest, QueuedTaskThatBlocks_DoesNotDelayTheNextQueuedOne) {
  Start(/*slots=*/2, /*prefetch=*/2);
  FakeStream* stream = Welcome(0);
  stream->Send(Batch(
      {Assign("gated", "l1"), Assign("gated", "l2"), Assign("gated", "l3"), Assign("noop", "l4")}));
  ExpectStarted(stream, "l1");
  ExpectStarted(stream, "l2");

  // l3 starts in l2's slot, and blocks there.
  Release("l2");
  ExpectFinished(stream, "l2");
  ExpectStarted(stream, "l3");
  // l1's slot frees: l4 runs in it at once, although l3 (started by the
  // thread l2 ran on) still blocks.
  Release("l1");
  ExpectFinished(stream, "l1");
  ExpectStarted(stream, "l4");
  ExpectFinished(stream, "l4");

  Release("l3");
  ExpectFinished(stream, "l3");
}

TEST_F(SessionTaskThreadsTest, BatchWithACancelBetweenAssignments_HandledInOrder) {
  Start(/*slots=*/1, /*prefetch=*/2);
  FakeStream* stream = Welcome(0);
  v1::ConnectResponse cancel;
  cancel.mutable_cancel()->set_task_id("task-l2");
  cancel.mutable_cancel()->set_lease_id("l2");
  cancel.mutable_cancel()->set_reason("run cancelled");
  // l2 is queued when the cancel comes; l3 is queued after it.
  stream->Send(Batch({Assign("gated", "l1"), Assign("gated", "l2"), cancel, Assign("noop", "l3")}));
  ExpectStarted(stream, "l1");
  v1::TaskResult cancelled = Expect(stream, v1::ConnectRequest::kTaskResult).task_result();
  EXPECT_EQ(cancelled.lease_id(), "l2");
  EXPECT_EQ(cancelled.error(), "cancelled: run cancelled");
  EXPECT_EQ(Expect(stream, v1::ConnectRequest::kCredits).credits().slots(), 1);

  Release("l1");
  ExpectFinished(stream, "l1");
  ExpectStarted(stream, "l3");
  ExpectFinished(stream, "l3");
}

}  // namespace
}  // namespace taskboard::worker
