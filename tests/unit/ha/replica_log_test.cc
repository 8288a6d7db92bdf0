#include "scheduler/ha/replica_log.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::ha {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

LogEntry Entry(uint64_t epoch, uint64_t index, size_t bytes = 10) {
  return LogEntry{{epoch, index}, std::make_shared<const std::string>(bytes, 'x'), 0};
}

TEST(ReplicaLogTest, Append_NotTheNextIndex_InvalidArgument) {
  ReplicaLog log({}, {3, 10});
  EXPECT_THAT(log.Append(Entry(3, 12)), StatusIs(absl::StatusCode::kInvalidArgument,
                                                 HasSubstr("cannot append (epoch 3, index 12)")));
  EXPECT_THAT(log.Append(Entry(2, 11)), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(log.Append(Entry(4, 11)), IsOk());
  EXPECT_EQ(log.last(), (LogPosition{4, 11}));
}

TEST(ReplicaLogTest, Read_FromAnIndex_EntriesInOrderWithinLimits) {
  ReplicaLog log;
  for (uint64_t i = 1; i <= 5; ++i) ASSERT_THAT(log.Append(Entry(1, i)), IsOk());

  absl::StatusOr<std::vector<LogEntry>> two = log.Read(2, 2, 1 << 20);
  ASSERT_THAT(two, IsOk());
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].position.index, 2u);
  EXPECT_EQ((*two)[1].position.index, 3u);
  // The byte limit cuts after the first entry that fits, never before it.
  EXPECT_EQ(log.Read(1, 100, 15)->size(), 1u);
  EXPECT_TRUE(log.Read(6, 100, 1 << 20)->empty());
}

TEST(ReplicaLogTest, Trim_OverMaxEntries_DropsOldestAndReadSaysOutOfRange) {
  ReplicaLog log(ReplicaLogOptions{3, 1 << 20});
  for (uint64_t i = 1; i <= 5; ++i) ASSERT_THAT(log.Append(Entry(1, i)), IsOk());

  EXPECT_EQ(log.first_index(), 3u);
  EXPECT_THAT(log.Read(2, 10, 1 << 20),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("entry 2 was dropped")));
  EXPECT_EQ(log.Read(3, 10, 1 << 20)->size(), 3u);
}

TEST(ReplicaLogTest, Trim_OverMaxBytes_DropsOldest) {
  ReplicaLog log(ReplicaLogOptions{100, 25});
  for (uint64_t i = 1; i <= 4; ++i) ASSERT_THAT(log.Append(Entry(1, i, 10)), IsOk());
  EXPECT_EQ(log.first_index(), 3u);
}

TEST(ReplicaLogTest, LagAfter_CountsBatchesBytesAndTheOldestMissingEntry) {
  ReplicaLog log(ReplicaLogOptions{3, 1 << 20});
  for (uint64_t i = 1; i <= 5; ++i) {
    ASSERT_THAT(
        log.Append(LogEntry{
            {1, i}, std::make_shared<const std::string>(i, 'x'), static_cast<int64_t>(1000 * i)}),
        IsOk());
  }
  // Holds everything: no lag.
  ReplicaLog::Lag none = log.LagAfter(5);
  EXPECT_EQ(none.batches, 0u);
  EXPECT_EQ(none.bytes, 0u);
  EXPECT_EQ(none.oldest_unix_ms, std::nullopt);
  // Lacks 4 and 5 (4 + 5 bytes), the oldest committed at 4000 ms.
  ReplicaLog::Lag two = log.LagAfter(3);
  EXPECT_EQ(two.batches, 2u);
  EXPECT_EQ(two.bytes, 9u);
  EXPECT_EQ(two.oldest_unix_ms, 4000);
  // Lacks entries the log dropped (it holds 3..5): every batch counts, the
  // bytes and age of what is held are lower bounds.
  ReplicaLog::Lag far = log.LagAfter(0);
  EXPECT_EQ(far.batches, 5u);
  EXPECT_EQ(far.bytes, 12u);
  EXPECT_EQ(far.oldest_unix_ms, 3000);
}

TEST(ReplicaLogTest, Pin_KeepsEntriesPastTheLimitsUntilItExpires) {
  ReplicaLog log(ReplicaLogOptions{2, 1 << 20});
  const uint64_t pin = log.Pin(1, absl::InfiniteFuture());
  for (uint64_t i = 1; i <= 5; ++i) ASSERT_THAT(log.Append(Entry(1, i)), IsOk());
  EXPECT_EQ(log.first_index(), 1u);

  log.Repin(pin, absl::Now() - absl::Seconds(1));
  ASSERT_THAT(log.Append(Entry(1, 6)), IsOk());
  EXPECT_EQ(log.first_index(), 5u);
}

TEST(ReplicaLogTest, ResumeFrom_MatchingEntry_ContinuesAfterIt) {
  ReplicaLog log({}, {2, 4});  // a store that held 4 entries, the last of epoch 2
  for (uint64_t i = 5; i <= 7; ++i) ASSERT_THAT(log.Append(Entry(3, i)), IsOk());

  EXPECT_THAT(log.ResumeFrom({2, 4}), IsOk());
  EXPECT_EQ(*log.ResumeFrom({2, 4}), 5u);
  EXPECT_EQ(*log.ResumeFrom({3, 6}), 7u);
  EXPECT_EQ(*log.ResumeFrom({3, 7}), 8u);
}

TEST(ReplicaLogTest, ResumeFrom_BehindDivergedOrAhead_NeedsACheckpoint) {
  ReplicaLog log(ReplicaLogOptions{2, 1 << 20}, {1, 0});
  for (uint64_t i = 1; i <= 4; ++i) ASSERT_THAT(log.Append(Entry(2, i)), IsOk());

  EXPECT_THAT(log.ResumeFrom({2, 1}), StatusIs(absl::StatusCode::kFailedPrecondition,
                                               HasSubstr("behind the leader's log")));
  // Entry 3 of epoch 1 was written by a deposed leader and never committed.
  EXPECT_THAT(log.ResumeFrom({1, 3}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("diverged")));
  EXPECT_THAT(log.ResumeFrom({2, 9}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("ahead of the leader")));
}

TEST(ReplicaLogTest, Listener_CalledAfterEachAppendUntilRemoved) {
  ReplicaLog log;
  int calls = 0;
  const uint64_t id = log.AddListener([&calls] { ++calls; });
  ASSERT_THAT(log.Append(Entry(1, 1)), IsOk());
  ASSERT_THAT(log.Append(Entry(1, 2)), IsOk());
  log.RemoveListener(id);
  ASSERT_THAT(log.Append(Entry(1, 3)), IsOk());
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace taskboard::ha
