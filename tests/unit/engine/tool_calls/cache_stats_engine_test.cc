// Engine::GetCacheStats: the shared tool cache's rows per tenant, scope and
// tool after real lookups over the worker protocol, filtered by tenant.

#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/engine/engine_harness.h"
#include "tests/unit/engine/read_file_calls.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::CacheableReadFile;
using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::kReadArgs;
using ::taskboard::engine::testing::kReadResult;
using ::taskboard::engine::testing::TestWorker;
using ::testing::SizeIs;

constexpr char kTwoIndependent[] = R"({"name": "two", "phases": [
    {"id": "a", "agent": "coder", "task": "A"},
    {"id": "b", "agent": "coder", "task": "B"}]})";

std::string SubmitFor(EngineHarness& h, const std::string& tenant) {
  SubmitRequest request;
  request.spec = taskboard::testing::LoadValidFlow(kTwoIndependent);
  request.tenant = tenant;
  std::optional<absl::StatusOr<SubmitResult>> result;
  h.engine().Submit(std::move(request), [&](absl::StatusOr<SubmitResult> r) { result = r; });
  h.RunOnce();
  EXPECT_TRUE(result.has_value() && result->ok());
  return result.has_value() && result->ok() ? (*result)->run_id : "";
}

v1::GetCacheStatsResponse Stats(EngineHarness& h, std::optional<std::string> tenant) {
  v1::GetCacheStatsResponse stats;
  h.engine().GetCacheStats(std::move(tenant),
                           [&](v1::GetCacheStatsResponse response) { stats = response; });
  h.RunOnce();
  return stats;
}

// The decision the engine sent for the lookup just made.
v1::ToolDecision Decided(TestWorker& worker) {
  std::vector<v1::ToolDecision> decisions = EngineHarness::Decisions(worker.channel->Take());
  EXPECT_THAT(decisions, SizeIs(1));
  return decisions.empty() ? v1::ToolDecision() : decisions[0];
}

// acme: a miss that stores an entry, then a hit; beta: a miss still running.
class EngineCacheStatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string acme_run = SubmitFor(h_, "acme");
    ASSERT_FALSE(SubmitFor(h_, "beta").empty());
    w_ = h_.Connect("w1", {"coder"}, 4, {}, {CacheableReadFile()});
    std::vector<v1::Assignment> assignments = h_.TakeAssignments(w_);
    ASSERT_THAT(assignments, SizeIs(4));
    std::vector<v1::Assignment> acme, beta;
    for (const v1::Assignment& a : assignments) {
      (a.run_id() == acme_run ? acme : beta).push_back(a);
    }
    ASSERT_THAT(acme, SizeIs(2));
    ASSERT_THAT(beta, SizeIs(2));

    h_.Lookup(w_, acme[0], "q1", "read_file", kReadArgs);
    v1::ToolDecision miss = Decided(w_);
    ASSERT_EQ(miss.outcome(), v1::ToolDecision::OUTCOME_MISS);
    h_.Observe(w_, acme[0], "read_file", kReadArgs, kReadResult, miss.call_id());
    h_.Lookup(w_, acme[1], "q2", "read_file", kReadArgs);
    ASSERT_EQ(Decided(w_).outcome(), v1::ToolDecision::OUTCOME_HIT);
    h_.Lookup(w_, beta[0], "q3", "read_file", kReadArgs);
    ASSERT_EQ(Decided(w_).outcome(), v1::ToolDecision::OUTCOME_MISS);
  }

  EngineHarness h_;
  TestWorker w_;
};

TEST_F(EngineCacheStatsTest, EveryTenant_RowsByTenantWithTotals) {
  v1::GetCacheStatsResponse stats = Stats(h_, std::nullopt);
  ASSERT_THAT(stats.rows(), SizeIs(2));
  // Which run was submitted first does not matter: rows come by tenant.
  EXPECT_EQ(stats.rows(0).tenant(), "acme");
  EXPECT_EQ(stats.rows(0).scope(), v1::CACHE_SCOPE_RUN);
  EXPECT_EQ(stats.rows(0).tool(), "read_file");
  EXPECT_EQ(stats.rows(0).entries(), 1);
  EXPECT_EQ(stats.rows(0).hits(), 1);
  EXPECT_EQ(stats.rows(0).misses(), 1);
  EXPECT_EQ(stats.rows(0).coalesced(), 0);
  EXPECT_EQ(stats.rows(1).tenant(), "beta");
  EXPECT_EQ(stats.rows(1).entries(), 0);
  EXPECT_EQ(stats.rows(1).misses(), 1);
  EXPECT_EQ(stats.entries(), 1);
  EXPECT_EQ(stats.max_entries_per_tenant(), 100'000);
}

TEST_F(EngineCacheStatsTest, OneTenant_ItsRowsAndEntriesOnly) {
  v1::GetCacheStatsResponse beta = Stats(h_, "beta");
  ASSERT_THAT(beta.rows(), SizeIs(1));
  EXPECT_EQ(beta.rows(0).tenant(), "beta");
  EXPECT_EQ(beta.entries(), 0);

  v1::GetCacheStatsResponse acme = Stats(h_, "acme");
  ASSERT_THAT(acme.rows(), SizeIs(1));
  EXPECT_EQ(acme.entries(), 1);

  EXPECT_THAT(Stats(h_, "gamma").rows(), SizeIs(0));
}

}  // namespace
}  // namespace taskboard::engine
