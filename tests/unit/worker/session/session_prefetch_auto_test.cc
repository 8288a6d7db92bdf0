// A worker session with --prefetch auto (SessionOptions::max_prefetch) against
// the scripted gateway: tasks that end far faster than the scheduler's round
// trip grow the queue ahead of the slots, announced with the extra credits in
// one Credits{prefetch}; tasks longer than the round trip shrink it again, one
// withheld credit per task that ends (Credits{slots: 0, prefetch}), and the
// next Hello offers the resized queue.

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

class SessionPrefetchAutoTest : public SessionHarness {
 protected:
  void SetUp() override {
    // Longer than any round trip these tests let pass before an ack.
    std::ofstream(dir_.path() / "slow.yaml") << "command: [/bin/sh, -c, 'sleep 0.3']\n";
    ASSERT_NO_FATAL_FAILURE(LoadAgents({}));
    SessionOptions options;
    options.slots = 1;
    options.prefetch = 1;
    options.max_prefetch = 8;
    options.version = "test";
    StartSession(options);
  }

  // Runs one task of `agent` to its result and returns the Credits that
  // follows; the result is acknowledged after `ack_after`.
  static v1::Credits RunOne(FakeStream* stream, const std::string& agent, const std::string& lease,
                            absl::Duration ack_after) {
    stream->Send(Assign(agent, lease));
    Expect(stream, v1::ConnectRequest::kTaskStarted);
    EXPECT_EQ(Expect(stream, v1::ConnectRequest::kTaskResult, /*skip_deltas=*/true)
                  .task_result()
                  .lease_id(),
              lease);
    v1::Credits credits = Expect(stream, v1::ConnectRequest::kCredits).credits();
    absl::SleepFor(ack_after);
    stream->Send(Ack(lease));
    return credits;
  }

  // A noop task whose result is acknowledged 200 ms later: a round trip
  // thousands of times the task, so the next freed place grows the queue to
  // the ceiling.
  static void GrowToTheCeiling(FakeStream* stream) {
    v1::Credits first = RunOne(stream, "noop", "n1", absl::Milliseconds(200));
    EXPECT_EQ(first.slots(), 1);
    EXPECT_FALSE(first.has_prefetch());  // no round trip measured yet
    v1::Credits grown = RunOne(stream, "noop", "n2", absl::ZeroDuration());
    // From 1 slot + 1 queued to 1 + 8: the freed place and 7 more.
    EXPECT_EQ(grown.slots(), 8);
    ASSERT_TRUE(grown.has_prefetch());
    EXPECT_EQ(grown.prefetch(), 8);
  }
};

TEST_F(SessionPrefetchAutoTest, Hello_OffersTheFloor) {
  v1::Hello hello;
  Welcome(0, {}, &hello);
  EXPECT_EQ(hello.slots(), 2);
  EXPECT_EQ(hello.prefetch(), 1);
}

TEST_F(SessionPrefetchAutoTest, TasksShorterThanTheRoundTrip_GrowTheQueueToTheCeiling) {
  FakeStream* stream = Welcome(0);
  GrowToTheCeiling(stream);
  // Settled: the next task frees one place, no resize.
  v1::Credits next = RunOne(stream, "noop", "n3", absl::ZeroDuration());
  EXPECT_EQ(next.slots(), 1);
  EXPECT_FALSE(next.has_prefetch());
}

TEST_F(SessionPrefetchAutoTest, TasksLongerThanTheRoundTrip_ShrinkItByWithholdingCredits) {
  FakeStream* stream = Welcome(0);
  GrowToTheCeiling(stream);
  // 300 ms tasks acknowledged at once: the means move a tenth per task, and
  // within a few tasks each one ending withholds its place and halves the
  // queue, down to the floor.
  int prefetch = 8;
  for (int i = 0; i < 30 && prefetch > 1; ++i) {
    v1::Credits credits = RunOne(stream, "slow", "s" + std::to_string(i), absl::ZeroDuration());
    if (!credits.has_prefetch()) {
      EXPECT_EQ(credits.slots(), 1);
      continue;
    }
    EXPECT_EQ(credits.slots(), 0) << "a shrinking queue withholds the freed place";
    EXPECT_EQ(credits.prefetch(), prefetch - 1) << "one place per task that ends";
    prefetch = credits.prefetch();
  }
  EXPECT_EQ(prefetch, 1);
}

TEST_F(SessionPrefetchAutoTest, Reconnect_HelloOffersTheGrownQueue) {
  FakeStream* stream = Welcome(0);
  GrowToTheCeiling(stream);
  stream->End();
  v1::Hello hello;
  Welcome(1, {}, &hello);
  EXPECT_EQ(hello.slots(), 9);
  EXPECT_EQ(hello.prefetch(), 8);
}

}  // namespace
}  // namespace taskboard::worker
