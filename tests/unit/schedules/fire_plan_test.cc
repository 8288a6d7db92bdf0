#include "scheduler/schedules/fire_plan.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::schedules {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

absl::Time At(int hour, int minute, int second = 0) {
  return absl::FromCivil(absl::CivilSecond(2026, 1, 1, hour, minute, second), absl::UTCTimeZone());
}

// Every minute, UTC: simple times to reason about.
ScheduleSpec EveryMinute() {
  ScheduleSpec spec;
  spec.crons.push_back(*MakeCronItem("* * * * *", "UTC"));
  return spec;
}

// "action@HH:MM" for each decision, "+" marking a fire from the buffer.
std::vector<std::string> Summary(const FirePlan& plan) {
  std::vector<std::string> out;
  for (const FireDecision& decision : plan.decisions) {
    out.push_back(absl::StrCat(
        decision.from_buffer ? "+" : "", FireActionName(decision.action), "@",
        absl::FormatTime("%H:%M", decision.pending.fire.nominal, absl::UTCTimeZone())));
  }
  return out;
}

ScheduleState Running(absl::Time processed_through, std::vector<std::string> run_ids) {
  ScheduleState state = NewScheduleState(processed_through);
  state.running_run_ids = std::move(run_ids);
  return state;
}

// A catch-up window wide enough that nothing here is missed unless a test
// says otherwise.
SchedulePolicies Policy(OverlapPolicy overlap) {
  SchedulePolicies policies;
  policies.overlap = overlap;
  policies.catchup_window = absl::Hours(1);
  return policies;
}

TEST(PlanDueFires, NothingRunning_StartsTheDueFireWithItsKey) {
  const FirePlan plan = PlanDueFires(EveryMinute(), "s", SchedulePolicies{},
                                     NewScheduleState(At(10, 0, 30)), At(10, 1, 5));
  EXPECT_THAT(Summary(plan), ElementsAre("start@10:01"));
  EXPECT_EQ(plan.decisions[0].pending.idempotency_key, "schedule:s@2026-01-01T10:01:00Z");
  EXPECT_EQ(plan.processed_through, At(10, 1));
  EXPECT_EQ(plan.next_due, At(10, 2));
  EXPECT_FALSE(plan.more);
}

TEST(PlanDueFires, NotDueYet_DecidesNothingAndSaysWhen) {
  const FirePlan plan = PlanDueFires(EveryMinute(), "s", SchedulePolicies{},
                                     NewScheduleState(At(10, 1)), At(10, 1, 59));
  EXPECT_THAT(plan.decisions, IsEmpty());
  EXPECT_EQ(plan.processed_through, At(10, 1));
  EXPECT_EQ(plan.next_due, At(10, 2));
}

TEST(PlanDueFires, SameStateTwice_SameDecisions) {
  // Exactly once rests on this: a scheduler that crashed before storing the
  // new state plans the same fires again, with the same keys.
  const ScheduleState state = NewScheduleState(At(10, 0));
  const FirePlan first = PlanDueFires(EveryMinute(), "s", SchedulePolicies{}, state, At(10, 1));
  const FirePlan again = PlanDueFires(EveryMinute(), "s", SchedulePolicies{}, state, At(10, 1, 30));
  EXPECT_EQ(first.decisions, again.decisions);
}

TEST(PlanDueFires, Skip_RunningRun_SkipsTheFire) {
  const FirePlan plan = PlanDueFires(EveryMinute(), "s", Policy(OverlapPolicy::kSkip),
                                     Running(At(10, 0), {"r-1"}), At(10, 1));
  EXPECT_THAT(Summary(plan), ElementsAre("skip_overlap@10:01"));
  EXPECT_THAT(plan.cancel_run_ids, IsEmpty());
}

TEST(PlanDueFires, Skip_SeveralDueAtOnce_StartsOnlyTheFirst) {
  const FirePlan plan = PlanDueFires(EveryMinute(), "s", Policy(OverlapPolicy::kSkip),
                                     NewScheduleState(At(10, 0)), At(10, 3));
  EXPECT_THAT(Summary(plan),
              ElementsAre("start@10:01", "skip_overlap@10:02", "skip_overlap@10:03"));
}

TEST(PlanDueFires, BufferOne_KeepsOneWaitingAndSkipsTheRest) {
  const FirePlan plan = PlanDueFires(EveryMinute(), "s", Policy(OverlapPolicy::kBufferOne),
                                     Running(At(10, 0), {"r-1"}), At(10, 2));
  EXPECT_THAT(Summary(plan), ElementsAre("buffer@10:01", "skip_overlap@10:02"));
  ASSERT_EQ(plan.buffered.size(), 1u);
  EXPECT_EQ(plan.buffered[0].fire.nominal, At(10, 1));
}

TEST(PlanDueFires, BufferAll_WaitsInOrderAndStartsOneAtATime) {
  const FirePlan plan = PlanDueFires(EveryMinute(), "s", Policy(OverlapPolicy::kBufferAll),
                                     Running(At(10, 0), {"r-1"}), At(10, 2));
  EXPECT_THAT(Summary(plan), ElementsAre("buffer@10:01", "buffer@10:02"));
  // r-1 ends: the oldest waiting fire starts, the other keeps waiting.
  ScheduleState after = NewScheduleState(plan.processed_through);
  after.buffered = plan.buffered;
  const FirePlan next =
      PlanDueFires(EveryMinute(), "s", Policy(OverlapPolicy::kBufferAll), after, At(10, 2, 30));
  EXPECT_THAT(Summary(next), ElementsAre("+start@10:01"));
  ASSERT_EQ(next.buffered.size(), 1u);
  EXPECT_EQ(next.buffered[0].fire.nominal, At(10, 2));
  EXPECT_EQ(next.decisions[0].pending.idempotency_key, "schedule:s@2026-01-01T10:01:00Z");
}

TEST(PlanDueFires, BufferAll_FullBuffer_SkipsNewFires) {
  ScheduleState state = Running(At(10, 0), {"r-1"});
  for (int i = 0; i < kMaxBufferedFires; ++i) {
    state.buffered.push_back({FireTime{At(9, 0), At(9, 0)}, absl::StrCat("k", i)});
  }
  const FirePlan plan =
      PlanDueFires(EveryMinute(), "s", Policy(OverlapPolicy::kBufferAll), state, At(10, 1));
  EXPECT_THAT(Summary(plan), ElementsAre("skip_overlap@10:01"));
}

TEST(PlanDueFires, CancelOther_CancelsRunningAndWaitsForThem) {
  const FirePlan plan = PlanDueFires(EveryMinute(), "s", Policy(OverlapPolicy::kCancelOther),
                                     Running(At(10, 0), {"r-1", "r-2"}), At(10, 1));
  EXPECT_THAT(Summary(plan), ElementsAre("buffer@10:01"));
  EXPECT_THAT(plan.cancel_run_ids, ElementsAre("r-1", "r-2"));
}

TEST(PlanDueFires, CancelOther_NewestFireSupersedesOlderOnes) {
  // Nothing running: 10:01 would start, but 10:02 and 10:03 are due too; a
  // run started only to be cancelled is not started.
  const FirePlan plan = PlanDueFires(EveryMinute(), "s", Policy(OverlapPolicy::kCancelOther),
                                     NewScheduleState(At(10, 0)), At(10, 3));
  EXPECT_THAT(Summary(plan),
              ElementsAre("skip_overlap@10:01", "skip_overlap@10:02", "start@10:03"));
  // Running, with one already waiting: the waiting one gives way.
  ScheduleState state = Running(At(10, 0), {"r-1"});
  state.buffered.push_back({FireTime{At(9, 59), At(9, 59)}, "old"});
  const FirePlan second =
      PlanDueFires(EveryMinute(), "s", Policy(OverlapPolicy::kCancelOther), state, At(10, 1));
  EXPECT_THAT(Summary(second), ElementsAre("+skip_overlap@09:59", "buffer@10:01"));
  EXPECT_THAT(second.cancel_run_ids, ElementsAre("r-1"));
}

TEST(PlanDueFires, AllowAll_StartsAlongsideRunningRuns) {
  const FirePlan plan = PlanDueFires(EveryMinute(), "s", Policy(OverlapPolicy::kAllowAll),
                                     Running(At(10, 0), {"r-1"}), At(10, 2));
  EXPECT_THAT(Summary(plan), ElementsAre("start@10:01", "start@10:02"));
  EXPECT_THAT(plan.cancel_run_ids, IsEmpty());
}

TEST(PlanDueFires, CatchUp_OlderThanWindowMissedNewerStarted) {
  // Down from 10:00 to 10:10 with a 3-minute window: 10:07 to 10:10 are in
  // it (10:07 is exactly 3 minutes old), the rest are missed.
  SchedulePolicies policies = Policy(OverlapPolicy::kAllowAll);
  policies.catchup_window = absl::Minutes(3);
  const FirePlan plan =
      PlanDueFires(EveryMinute(), "s", policies, NewScheduleState(At(10, 0)), At(10, 10));
  EXPECT_THAT(
      Summary(plan),
      ElementsAre("missed@10:01", "missed@10:02", "missed@10:03", "missed@10:04", "missed@10:05",
                  "missed@10:06", "start@10:07", "start@10:08", "start@10:09", "start@10:10"));
}

TEST(PlanDueFires, CatchUp_DefaultWindowIsOneMinute) {
  SchedulePolicies policies;
  policies.overlap = OverlapPolicy::kAllowAll;
  const FirePlan plan =
      PlanDueFires(EveryMinute(), "s", policies, NewScheduleState(At(10, 0)), At(10, 3, 30));
  // At 10:03:30, 10:02 is 90 s old.
  EXPECT_THAT(Summary(plan), ElementsAre("missed@10:01", "missed@10:02", "start@10:03"));
}

TEST(PlanDueFires, LongDowntime_DecidedInBoundedSteps) {
  // Two days of minutely fires, default policies: 2,880 decisions in steps
  // of 1,000. The last two are inside the one-minute window: the first
  // starts, the second meets it running and is skipped.
  ScheduleState state = NewScheduleState(At(0, 0));
  const absl::Time now = At(0, 0) + absl::Hours(48);
  int missed = 0, started = 0, skipped = 0, plans = 0;
  while (true) {
    const FirePlan plan = PlanDueFires(EveryMinute(), "s", SchedulePolicies{}, state, now);
    ++plans;
    EXPECT_LE(plan.decisions.size(), static_cast<size_t>(kMaxDecisionsPerPlan));
    for (const FireDecision& decision : plan.decisions) {
      if (decision.action == FireAction::kMissed) ++missed;
      if (decision.action == FireAction::kStart) ++started;
      if (decision.action == FireAction::kSkipOverlap) ++skipped;
    }
    state.processed_through = plan.processed_through;
    if (!plan.more) break;
  }
  EXPECT_EQ(plans, 3);
  EXPECT_EQ(started, 1);
  EXPECT_EQ(skipped, 1);
  EXPECT_EQ(missed, 2878);
  EXPECT_EQ(state.processed_through, now);
}

TEST(PlanDueFires, Paused_RecordsSkipsAndKeepsTheBufferWaiting) {
  ScheduleState state = NewScheduleState(At(10, 0));
  state.buffered.push_back({FireTime{At(9, 59), At(9, 59)}, "waiting"});
  Pause(&state, "maintenance");
  const FirePlan plan = PlanDueFires(EveryMinute(), "s", SchedulePolicies{}, state, At(10, 2));
  EXPECT_THAT(Summary(plan), ElementsAre("skip_paused@10:01", "skip_paused@10:02"));
  EXPECT_EQ(plan.buffered.size(), 1u);
  EXPECT_EQ(plan.processed_through, At(10, 2));
  // Unpaused: the paused fires are not caught up; the waiting one starts.
  state.processed_through = plan.processed_through;
  Unpause(&state, "done");
  EXPECT_FALSE(state.paused);
  EXPECT_EQ(state.note, "done");
  const FirePlan after = PlanDueFires(EveryMinute(), "s", SchedulePolicies{}, state, At(10, 2, 10));
  EXPECT_THAT(Summary(after), ElementsAre("+start@09:59"));
}

TEST(PlanDueFires, EndTime_NoFiresAfterItAndNothingNextDue) {
  ScheduleSpec spec = EveryMinute();
  spec.end_time = At(10, 2);
  const FirePlan plan = PlanDueFires(spec, "s", Policy(OverlapPolicy::kAllowAll),
                                     NewScheduleState(At(10, 0)), At(10, 2, 30));
  EXPECT_THAT(Summary(plan), ElementsAre("start@10:01", "start@10:02"));
  EXPECT_EQ(plan.next_due, std::nullopt);
  const FirePlan later =
      PlanDueFires(spec, "s", SchedulePolicies{}, NewScheduleState(At(10, 2)), At(11, 0));
  EXPECT_THAT(later.decisions, IsEmpty());
  EXPECT_EQ(later.next_due, std::nullopt);
}

TEST(PlanDueFires, Jitter_DueAtTheActualTime) {
  ScheduleSpec spec = EveryMinute();
  spec.jitter = absl::Seconds(50);
  const FireTime fire = FireAt(spec, "s", At(10, 1));
  ASSERT_GT(fire.actual, fire.nominal);
  const ScheduleState state = NewScheduleState(At(10, 0));
  EXPECT_THAT(
      PlanDueFires(spec, "s", SchedulePolicies{}, state, fire.actual - absl::Milliseconds(1))
          .decisions,
      IsEmpty());
  EXPECT_THAT(Summary(PlanDueFires(spec, "s", SchedulePolicies{}, state, fire.actual)),
              ElementsAre("start@10:01"));
}

TEST(PlanTrigger, StartsNowWithATriggerKey) {
  const FirePlan plan =
      PlanTrigger("s", OverlapPolicy::kSkip, NewScheduleState(At(10, 0)), At(10, 0, 30));
  EXPECT_THAT(Summary(plan), ElementsAre("start@10:00"));
  EXPECT_EQ(plan.decisions[0].pending.idempotency_key, "schedule:s/trigger@2026-01-01T10:00:30Z");
}

TEST(PlanTrigger, OverlapPolicyApplies) {
  EXPECT_THAT(
      Summary(PlanTrigger("s", OverlapPolicy::kSkip, Running(At(10, 0), {"r-1"}), At(10, 0, 30))),
      ElementsAre("skip_overlap@10:00"));
  EXPECT_THAT(Summary(PlanTrigger("s", OverlapPolicy::kAllowAll, Running(At(10, 0), {"r-1"}),
                                  At(10, 0, 30))),
              ElementsAre("start@10:00"));
}

TEST(PlanBackfill, RangeStartsEveryFireWithScheduledKeys) {
  absl::StatusOr<FirePlan> plan = PlanBackfill(EveryMinute(), "s", OverlapPolicy::kAllowAll,
                                               NewScheduleState(At(12, 0)), At(9, 0), At(9, 3));
  ASSERT_THAT(plan, IsOk());
  EXPECT_THAT(Summary(*plan), ElementsAre("start@09:00", "start@09:01", "start@09:02"));
  EXPECT_EQ(plan->decisions[0].pending.idempotency_key, "schedule:s@2026-01-01T09:00:00Z");
  EXPECT_EQ(plan->processed_through, At(12, 0));  // untouched
}

TEST(PlanBackfill, BufferAll_OneAtATime) {
  absl::StatusOr<FirePlan> plan = PlanBackfill(EveryMinute(), "s", OverlapPolicy::kBufferAll,
                                               NewScheduleState(At(12, 0)), At(9, 0), At(9, 3));
  ASSERT_THAT(plan, IsOk());
  EXPECT_THAT(Summary(*plan), ElementsAre("start@09:00", "buffer@09:01", "buffer@09:02"));
}

TEST(PlanBackfill, TooManyFires_FailsNamingTheBound) {
  EXPECT_THAT(
      PlanBackfill(EveryMinute(), "s", OverlapPolicy::kAllowAll, NewScheduleState(At(12, 0)),
                   At(9, 0), At(11, 0), 100),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("holds more than 100 fire times")));
  EXPECT_THAT(
      PlanBackfill(EveryMinute(), "s", OverlapPolicy::kAllowAll, NewScheduleState(At(12, 0)),
                   At(0, 0), At(0, 0) + absl::Hours(48), 1000000),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than 1000")));
}

TEST(PlanBackfill, EmptyRange_Fails) {
  EXPECT_THAT(PlanBackfill(EveryMinute(), "s", OverlapPolicy::kAllowAll,
                           NewScheduleState(At(12, 0)), At(9, 0), At(9, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must be after the start")));
}

TEST(OverlapPolicyNames, RoundTrip) {
  for (OverlapPolicy policy :
       {OverlapPolicy::kSkip, OverlapPolicy::kBufferOne, OverlapPolicy::kBufferAll,
        OverlapPolicy::kCancelOther, OverlapPolicy::kAllowAll}) {
    EXPECT_EQ(OverlapPolicyFromName(OverlapPolicyName(policy)), policy);
  }
  EXPECT_EQ(OverlapPolicyFromName("bufferAll"), std::nullopt);
}

}  // namespace
}  // namespace taskboard::schedules
