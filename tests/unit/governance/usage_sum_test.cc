// The arithmetic of every usage total (scheduler/governance/usage_sum.h):
// sums saturate instead of wrapping, what a worker reports is accepted with
// negative counts at 0, and tenant totals and budgets use the same sums.

#include "scheduler/governance/usage_sum.h"

#include <cstdint>
#include <limits>

#include "gtest/gtest.h"
#include "scheduler/governance/budget.h"
#include "scheduler/governance/usage_book.h"

namespace taskboard::governance {
namespace {

v1::Usage UsageOf(int64_t input, int64_t output, int64_t cached = 0, double usd = 0,
                  int32_t turns = 1) {
  v1::Usage usage;
  usage.set_input_tokens(input);
  usage.set_output_tokens(output);
  usage.set_cache_read_tokens(cached);
  usage.set_cost_usd(usd);
  usage.set_turns(turns);
  return usage;
}

TEST(UsageSum, AddUsage_SumsEveryCounter) {
  v1::Usage total = UsageOf(10, 5, 2, 0.5, 1);
  AddUsage(total, UsageOf(20, 7, 3, 0.25, 2));
  EXPECT_EQ(total.input_tokens(), 30);
  EXPECT_EQ(total.output_tokens(), 12);
  EXPECT_EQ(total.cache_read_tokens(), 5);
  EXPECT_DOUBLE_EQ(total.cost_usd(), 0.75);
  EXPECT_EQ(total.turns(), 3);
}

TEST(UsageSum, AddUsage_PastInt64_HoldsAtTheTopInsteadOfWrapping) {
  v1::Usage total = UsageOf(INT64_MAX - 10, INT64_MAX, INT64_MAX, 0, INT32_MAX);
  AddUsage(total, UsageOf(100, 1, 1, 0, 5));
  EXPECT_EQ(total.input_tokens(), INT64_MAX);
  EXPECT_EQ(total.output_tokens(), INT64_MAX);
  EXPECT_EQ(total.cache_read_tokens(), INT64_MAX);
  EXPECT_EQ(total.turns(), INT32_MAX);
  EXPECT_EQ(BudgetTokens(total), INT64_MAX);
}

TEST(UsageSum, AcceptedUsage_NegativeCountsAndCostAreZero) {
  v1::Usage accepted = AcceptedUsage(UsageOf(-1'000'000'000, -3, -2, -2'000, -1));
  EXPECT_EQ(accepted.input_tokens(), 0);
  EXPECT_EQ(accepted.output_tokens(), 0);
  EXPECT_EQ(accepted.cache_read_tokens(), 0);
  EXPECT_EQ(accepted.cost_usd(), 0);
  EXPECT_EQ(accepted.turns(), 0);
  EXPECT_EQ(AcceptedUsage(UsageOf(1, 1, 0, std::numeric_limits<double>::quiet_NaN())).cost_usd(),
            0);
  EXPECT_EQ(AcceptedUsage(UsageOf(1, 1, 0, std::numeric_limits<double>::infinity())).cost_usd(), 0);
}

TEST(UsageSum, AcceptedUsage_KeepsSaneUsage_CachedAtMostTheInput) {
  v1::Usage usage = UsageOf(100, 20, 64, 0.01, 2);
  usage.set_model("m");
  v1::Usage accepted = AcceptedUsage(usage);
  EXPECT_EQ(accepted.SerializeAsString(), usage.SerializeAsString());
  EXPECT_EQ(AcceptedUsage(UsageOf(100, 20, 500)).cache_read_tokens(), 100);
}

TEST(UsageSum, TenantSpend_SaturatesOverManyHugeRows) {
  UsageBook book;
  book.Add({"2026-11-01", "acme", "a"}, UsageOf(INT64_MAX, 0), false);
  book.Add({"2026-11-02", "acme", "b"}, UsageOf(INT64_MAX, INT64_MAX), false);
  EXPECT_EQ(book.TenantSpend("acme", "2026-11").tokens, INT64_MAX);
}

TEST(UsageSum, OverBudget_HugeBilledTotals_StillOverNotWrappedUnder) {
  const BudgetLimit limit{.tokens = 1'000};
  const Spend billed{.tokens = INT64_MAX};
  EXPECT_TRUE(OverBudget("run r", limit, billed, {.tokens = INT64_MAX}, {.tokens = 10}, "raise it")
                  .has_value());
}

}  // namespace
}  // namespace taskboard::governance
