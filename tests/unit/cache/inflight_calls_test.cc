#include "scheduler/cache/inflight_calls.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::cache {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

Caller On(absl::string_view worker, absl::string_view request, absl::string_view lease = "") {
  return Caller{.worker_id = std::string(worker),
                .request_id = std::string(request),
                .task_id = absl::StrCat("task-", request),
                .lease_id = lease.empty() ? absl::StrCat("lease-", request) : std::string(lease)};
}

std::vector<std::string> Requests(const std::vector<Caller>& callers) {
  std::vector<std::string> out;
  for (const Caller& caller : callers) out.push_back(caller.request_id);
  return out;
}

TEST(InflightCalls, Join_FirstExecutesLaterWaitOnIt) {
  InflightCalls calls("c");
  InflightCalls::JoinResult first = calls.Join("k", On("w1", "r1"));
  EXPECT_EQ(first.role, InflightCalls::Role::kExecute);
  EXPECT_EQ(first.call_id, "c1");
  InflightCalls::JoinResult second = calls.Join("k", On("w2", "r2"));
  EXPECT_EQ(second.role, InflightCalls::Role::kWait);
  EXPECT_EQ(second.call_id, "c1");
  // Another key is another call.
  EXPECT_EQ(calls.Join("k2", On("w2", "r3")).role, InflightCalls::Role::kExecute);
  EXPECT_EQ(calls.calls(), 2);
  EXPECT_EQ(calls.waiters(), 1);
  ASSERT_NE(calls.Owner("c1"), nullptr);
  EXPECT_EQ(calls.Owner("c1")->request_id, "r1");
}

TEST(InflightCalls, Completed_FiveWaitersAllAnsweredAndKeyForgotten) {
  InflightCalls calls("c");
  const std::string call_id = calls.Join("k", On("w0", "owner")).call_id;
  for (int i = 1; i <= 5; ++i) calls.Join("k", On(absl::StrCat("w", i), absl::StrCat("r", i)));
  EXPECT_THAT(Requests(calls.Completed(call_id)), ElementsAre("r1", "r2", "r3", "r4", "r5"));
  EXPECT_EQ(calls.calls(), 0);
  EXPECT_EQ(calls.Owner(call_id), nullptr);
  InflightCalls::JoinResult next = calls.Join("k", On("w9", "r9"));
  EXPECT_EQ(next.role, InflightCalls::Role::kExecute);
  EXPECT_NE(next.call_id, call_id);
}

TEST(InflightCalls, Completed_UnknownCallId_Nothing) {
  InflightCalls calls("c");
  calls.Join("k", On("w1", "r1"));
  calls.Join("k", On("w2", "r2"));
  EXPECT_THAT(calls.Completed("c999"), IsEmpty());
  EXPECT_EQ(calls.waiters(), 1);
}

TEST(InflightCalls, Failed_PromotesExactlyTheOldestWaiter) {
  InflightCalls calls("c");
  const std::string first_id = calls.Join("k", On("w0", "owner")).call_id;
  calls.Join("k", On("w1", "r1"));
  calls.Join("k", On("w2", "r2"));
  calls.Join("k", On("w3", "r3"));

  std::optional<InflightCalls::Promotion> promotion = calls.Failed(first_id);
  ASSERT_TRUE(promotion.has_value());
  EXPECT_EQ(promotion->caller.request_id, "r1");
  EXPECT_NE(promotion->call_id, first_id);
  EXPECT_EQ(calls.waiters(), 2);
  // The failed owner's id is dead; the new one completes for the rest.
  EXPECT_THAT(calls.Completed(first_id), IsEmpty());
  EXPECT_EQ(calls.Join("k", On("w4", "r4")).call_id, promotion->call_id);
  EXPECT_THAT(Requests(calls.Completed(promotion->call_id)), ElementsAre("r2", "r3", "r4"));
}

TEST(InflightCalls, Failed_NoWaiters_KeyForgotten) {
  InflightCalls calls("c");
  const std::string call_id = calls.Join("k", On("w1", "r1")).call_id;
  EXPECT_FALSE(calls.Failed(call_id).has_value());
  EXPECT_EQ(calls.calls(), 0);
  EXPECT_EQ(calls.Join("k", On("w2", "r2")).role, InflightCalls::Role::kExecute);
}

TEST(InflightCalls, WorkerLost_OwnerLost_WaiterPromoted) {
  InflightCalls calls("c");
  calls.Join("k", On("dead", "r1"));
  calls.Join("k", On("w2", "r2"));
  calls.Join("k", On("w3", "r3"));
  std::vector<InflightCalls::Promotion> promotions = calls.WorkerLost("dead");
  ASSERT_THAT(promotions, SizeIs(1));
  EXPECT_EQ(promotions[0].caller.request_id, "r2");
  EXPECT_EQ(calls.Owner(promotions[0].call_id)->worker_id, "w2");
  EXPECT_EQ(calls.waiters(), 1);
}

TEST(InflightCalls, WorkerLost_ItsWaitersDroppedNeverPromoted) {
  InflightCalls calls("c");
  const std::string call_id = calls.Join("k", On("dead", "r1")).call_id;
  calls.Join("k", On("dead", "r2"));  // the same worker also waits
  calls.Join("k", On("w3", "r3"));
  calls.Join("other", On("w4", "r4"));
  calls.Join("other", On("dead", "r5"));

  std::vector<InflightCalls::Promotion> promotions = calls.WorkerLost("dead");
  ASSERT_THAT(promotions, SizeIs(1));
  EXPECT_EQ(promotions[0].caller.request_id, "r3");
  EXPECT_EQ(calls.waiters(), 0);
  EXPECT_THAT(calls.Completed(call_id), IsEmpty());
  EXPECT_THAT(Requests(calls.Completed(calls.Join("other", On("w6", "r6")).call_id)),
              ElementsAre("r6"));
}

TEST(InflightCalls, WorkerLost_OnlyItsOwnWaiters_KeyForgotten) {
  InflightCalls calls("c");
  calls.Join("k", On("dead", "r1"));
  calls.Join("k", On("dead", "r2"));
  EXPECT_THAT(calls.WorkerLost("dead"), IsEmpty());
  EXPECT_EQ(calls.calls(), 0);
}

TEST(InflightCalls, WorkerLost_SeveralCalls_PromotionsInStartOrder) {
  InflightCalls calls("c");
  for (int i = 0; i < 20; ++i) {
    const std::string key = absl::StrCat("k", i);
    calls.Join(key, On("dead", absl::StrCat("owner", i)));
    calls.Join(key, On("w", absl::StrCat("r", i)));
  }
  std::vector<InflightCalls::Promotion> promotions = calls.WorkerLost("dead");
  ASSERT_THAT(promotions, SizeIs(20));
  for (int i = 0; i < 20; ++i) EXPECT_EQ(promotions[i].caller.request_id, absl::StrCat("r", i));
}

TEST(InflightCalls, LeaseLost_OwnerLeasePromotesAndWaiterLeaseDropped) {
  InflightCalls calls("c");
  calls.Join("k", On("w1", "r1", "expired"));
  calls.Join("k", On("w1", "r2", "expired"));
  calls.Join("k", On("w1", "r3", "live"));
  std::vector<InflightCalls::Promotion> promotions = calls.LeaseLost("expired");
  ASSERT_THAT(promotions, SizeIs(1));
  EXPECT_EQ(promotions[0].caller.request_id, "r3");
  EXPECT_EQ(calls.waiters(), 0);
}

TEST(InflightCalls, ForgetWaiter_RemovesOnlyThatRequest) {
  InflightCalls calls("c");
  const std::string call_id = calls.Join("k", On("w1", "r1")).call_id;
  calls.Join("k", On("w2", "r2"));
  calls.Join("k", On("w2", "r3"));
  EXPECT_TRUE(calls.ForgetWaiter("w2", "r2"));
  EXPECT_FALSE(calls.ForgetWaiter("w2", "r2"));
  EXPECT_FALSE(calls.ForgetWaiter("w1", "r1"));  // the owner is not a waiter
  EXPECT_THAT(Requests(calls.Completed(call_id)), ElementsAre("r3"));
}

TEST(InflightCalls, DefaultCallIds_DifferAcrossInstances) {
  // A call id from before a restart must not name a call of the new process.
  InflightCalls before;
  InflightCalls after;
  const std::string old_id = before.Join("k", On("w1", "r1")).call_id;
  const std::string new_id = after.Join("k", On("w1", "r1")).call_id;
  EXPECT_NE(old_id, new_id);
  EXPECT_EQ(after.Owner(old_id), nullptr);
}

// docs/tool-cache.md#when-an-executing-worker-is-out-of-touch: an owner whose
// stream closed is held; its announcement (same lease) takes the call back
// under the same id and the waiters get its result: the tool ran once.
TEST(InflightCalls, OwnerOutOfTouch_HeldThenTakenBackByItsAnnouncement) {
  InflightCalls calls("c");
  const std::string call_id = calls.Join("k", On("w1", "r1")).call_id;
  calls.Join("k", On("w2", "r2"));
  EXPECT_THAT(calls.WorkerLost("w1", /*hold_until_ms=*/5'000), IsEmpty());
  EXPECT_EQ(calls.NextRelease(), 5'000);
  EXPECT_THAT(calls.ReleaseHeld(4'999), IsEmpty());
  // The announcement from the reconnected worker, under the same lease.
  InflightCalls::JoinResult back =
      calls.Join("k", On("w1", "again-1", "lease-r1"), {.announce = true});
  EXPECT_EQ(back.role, InflightCalls::Role::kExecute);
  EXPECT_EQ(back.call_id, call_id);
  EXPECT_EQ(calls.NextRelease(), std::nullopt);
  EXPECT_THAT(calls.ReleaseHeld(10'000), IsEmpty());
  EXPECT_THAT(Requests(calls.Completed(call_id)), ElementsAre("r2"));
}

TEST(InflightCalls, OwnerNeverBack_OldestWaiterRunsItWhenTheHoldEnds) {
  InflightCalls calls("c");
  const std::string call_id = calls.Join("k", On("w1", "r1")).call_id;
  calls.Join("k", On("w2", "r2"));
  calls.Join("k", On("w3", "r3"));
  calls.WorkerLost("w1", 5'000);
  // Another lease announcing the same key does not take a held call it
  // does not own: it waits like anyone.
  EXPECT_EQ(calls.Join("k", On("w4", "r4"), {.announce = true}).role, InflightCalls::Role::kWait);
  std::vector<InflightCalls::Promotion> promotions = calls.ReleaseHeld(5'000);
  ASSERT_THAT(promotions, SizeIs(1));
  EXPECT_EQ(promotions[0].caller.request_id, "r2");
  EXPECT_NE(promotions[0].call_id, call_id);
  EXPECT_EQ(calls.NextRelease(), std::nullopt);
  EXPECT_THAT(Requests(calls.Completed(promotions[0].call_id)), ElementsAre("r3", "r4"));
}

TEST(InflightCalls, HeldOwnersLeaseEnds_PromotedAtOnce) {
  InflightCalls calls("c");
  calls.Join("k", On("w1", "r1"));
  calls.Join("k", On("w2", "r2"));
  calls.WorkerLost("w1", 5'000);
  std::vector<InflightCalls::Promotion> promotions = calls.LeaseLost("lease-r1");
  ASSERT_THAT(promotions, SizeIs(1));
  EXPECT_EQ(promotions[0].caller.request_id, "r2");
  EXPECT_EQ(calls.NextRelease(), std::nullopt);
}

// After a restart or a takeover nobody is known to execute anything: a
// caller waits on a held call with no owner; the first announcement of the
// key owns it, and the waiters get that worker's result.
TEST(InflightCalls, RecoveryHold_CallerWaitsUntilTheExecutingWorkerAnnouncesIt) {
  InflightCalls calls("c");
  InflightCalls::JoinResult fresh =
      calls.Join("k", On("w2", "r2"), {.recovery_hold_until_ms = 5'000});
  EXPECT_EQ(fresh.role, InflightCalls::Role::kWait);
  EXPECT_EQ(calls.Owner(fresh.call_id), nullptr);
  EXPECT_TRUE(calls.Unowned(fresh.call_id));
  InflightCalls::JoinResult announced =
      calls.Join("k", On("w1", "r1"), {.announce = true, .recovery_hold_until_ms = 5'000});
  EXPECT_EQ(announced.role, InflightCalls::Role::kExecute);
  EXPECT_EQ(announced.call_id, fresh.call_id);
  EXPECT_FALSE(calls.Unowned(fresh.call_id));
  EXPECT_THAT(calls.ReleaseHeld(6'000), IsEmpty());
  EXPECT_THAT(Requests(calls.Completed(fresh.call_id)), ElementsAre("r2"));
}

TEST(InflightCalls, RecoveryHold_NobodyAnnounces_OldestWaiterRunsItAtTheEnd) {
  InflightCalls calls("c");
  calls.Join("k", On("w2", "r2"), {.recovery_hold_until_ms = 5'000});
  calls.Join("k", On("w3", "r3"), {.recovery_hold_until_ms = 5'000});
  std::vector<InflightCalls::Promotion> promotions = calls.ReleaseHeld(5'000);
  ASSERT_THAT(promotions, SizeIs(1));
  EXPECT_EQ(promotions[0].caller.request_id, "r2");
  // Past the hold a new key executes at once (the engine stops passing it).
  EXPECT_EQ(calls.Join("k2", On("w4", "r4")).role, InflightCalls::Role::kExecute);
  // An announcement needs no hold: with nothing in flight it executes.
  EXPECT_EQ(calls.Join("k3", On("w5", "r5"), {.announce = true}).role,
            InflightCalls::Role::kExecute);
}

}  // namespace
}  // namespace taskboard::cache
