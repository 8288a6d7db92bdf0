#include "scheduler/engine/tool_calls/observation_cache.h"

#include <string>

#include "gtest/gtest.h"

namespace taskboard::engine {
namespace {

v1::Observation Sized(int64_t seq, size_t result_bytes) {
  v1::Observation observation;
  observation.set_seq(seq);
  observation.set_tool_name("read_file");
  observation.set_result_json(std::string(result_bytes, 'x'));
  return observation;
}

TEST(ObservationCache, Put_ThenFind_HitByRequestAndSeq) {
  ObservationCache cache(1 << 20);
  cache.Put("req-1", Sized(1, 10));
  const v1::Observation* found = cache.Find("req-1", 1);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->result_json(), std::string(10, 'x'));
  EXPECT_EQ(cache.Find("req-2", 1), nullptr);
  EXPECT_EQ(cache.Find("req-1", 2), nullptr);
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(cache.misses(), 2);
}

TEST(ObservationCache, OverBudget_EvictsLeastRecentlyUsedAndStaysWithinIt) {
  // Each entry is charged about 1,000 bytes plus overhead: three fit, four do not.
  ObservationCache cache(3 * 1'200);
  cache.Put("req", Sized(1, 1'000));
  cache.Put("req", Sized(2, 1'000));
  cache.Put("req", Sized(3, 1'000));
  ASSERT_NE(cache.Find("req", 1), nullptr);  // 1 is now the most recently used
  cache.Put("req", Sized(4, 1'000));
  EXPECT_EQ(cache.Find("req", 2), nullptr);
  EXPECT_NE(cache.Find("req", 1), nullptr);
  EXPECT_NE(cache.Find("req", 4), nullptr);
  EXPECT_EQ(cache.entries(), 3);
  EXPECT_EQ(cache.evictions(), 1);
  EXPECT_LE(cache.bytes(), cache.budget_bytes());
}

TEST(ObservationCache, EntryLargerThanBudget_NotKept) {
  ObservationCache cache(500);
  cache.Put("req", Sized(1, 10));
  cache.Put("req", Sized(2, 10'000));
  EXPECT_EQ(cache.Find("req", 2), nullptr);
  EXPECT_NE(cache.Find("req", 1), nullptr);
}

TEST(ObservationCache, ZeroBudget_CachesNothing) {
  ObservationCache cache(0);
  cache.Put("req", Sized(1, 1));
  EXPECT_EQ(cache.Find("req", 1), nullptr);
  EXPECT_EQ(cache.bytes(), 0);
}

TEST(ObservationCache, PutSameKeyAgain_ReplacesWithoutDoubleCharge) {
  ObservationCache cache(1 << 20);
  cache.Put("req", Sized(1, 100));
  const int64_t once = cache.bytes();
  cache.Put("req", Sized(1, 100));
  EXPECT_EQ(cache.bytes(), once);
  EXPECT_EQ(cache.entries(), 1);
}

}  // namespace
}  // namespace taskboard::engine
