// What a run billed against its budget, and the hint under a run a budget
// stopped: the lines `show` and the end of `run` / `watch` print.

#include "tools/cli/run_billing.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/fake_scheduler.h"

namespace taskboard::cli {
namespace {

using ::testing::HasSubstr;
using testing::ParseText;

v1::Run RunOf(const std::string& text) { return ParseText<v1::Run>(text); }

TEST(RunBilling, Budget_DollarsTokensOrBoth) {
  EXPECT_EQ(FormatBudget(ParseText<v1::RunBudget>("usd: 0.5 tokens: 100000")),
            "$0.500 / 100k tokens");
  EXPECT_EQ(FormatBudget(ParseText<v1::RunBudget>("usd: 2")), "$2.00");
  EXPECT_EQ(FormatBudget(ParseText<v1::RunBudget>("tokens: 50000")), "50k tokens");
  EXPECT_EQ(FormatBudget(v1::RunBudget()), "");
}

TEST(RunBilling, BilledLine_WithAndWithoutBudget) {
  EXPECT_EQ(BilledLine(RunOf(R"pb(
              billed { input_tokens: 12000 output_tokens: 3100 cost_usd: 0.42 }
              budget { usd: 0.5 tokens: 100000 })pb")),
            "billed ↑12k ↓3.1k $0.420 of budget $0.500 / 100k tokens");
  EXPECT_EQ(BilledLine(RunOf(R"pb(billed { input_tokens: 900 output_tokens: 40 })pb")),
            "billed ↑900 ↓40");
  EXPECT_EQ(BilledLine(RunOf(R"pb(budget { usd: 1 })pb")), "billed nothing of budget $1.00");
  EXPECT_EQ(BilledLine(RunOf(R"pb(usage { input_tokens: 5 })pb")), "");
}

TEST(RunBilling, WorthShowingAtTheEnd_OnlyWhenItAddsToTheHeader) {
  // The same as the header's usage, no budget: it would repeat the header.
  EXPECT_FALSE(BillingWorthShowing(RunOf(R"pb(
    usage { input_tokens: 100 output_tokens: 10 cost_usd: 0.01 }
    billed { input_tokens: 100 output_tokens: 10 cost_usd: 0.01 })pb")));
  // A retried call billed more than the final results show.
  EXPECT_TRUE(BillingWorthShowing(RunOf(R"pb(
    usage { input_tokens: 100 output_tokens: 10 cost_usd: 0.01 }
    billed { input_tokens: 180 output_tokens: 10 cost_usd: 0.018 })pb")));
  EXPECT_TRUE(BillingWorthShowing(RunOf(R"pb(budget { tokens: 1000 })pb")));
}

TEST(RunBilling, Hint_RunPausedOnItsDollarBudget) {
  const v1::Run run = RunOf(R"pb(
    run_id: "r-1"
    status: RUN_STATUS_PAUSED
    error: "paused: run r-1's budget of $0.5000 is reached: $0.4213 billed, $0.0000 in calls "
           "still running, and this call may cost up to $0.1200 (taskboard resume r-1 "
           "--budget-usd X)"
    billed { cost_usd: 0.4213 }
    budget { usd: 0.5 })pb");
  EXPECT_EQ(BudgetResumeHint(run),
            "raise its budget and continue: `taskboard resume r-1 --budget-usd X` (X: the new "
            "total in dollars, above the $0.421 billed)");
}

TEST(RunBilling, Hint_TokenBudgetAsksForTokens) {
  const v1::Run run = RunOf(R"pb(
    run_id: "r-1"
    status: RUN_STATUS_FAILED
    error: "task t: run r-1's budget of 50000 tokens is reached: 49000 billed, 0 in calls "
           "still running, and this call may use up to 4000"
    billed { input_tokens: 40000 output_tokens: 9000 }
    budget { usd: 5 tokens: 50000 })pb");
  EXPECT_THAT(BudgetResumeHint(run),
              HasSubstr("`taskboard resume r-1 --budget-tokens N` (N: the new total of input and "
                        "output tokens, above the 49000 billed)"));
}

TEST(RunBilling, Hint_TenantBudgetIsNotRaisedThroughTheRun) {
  const v1::Run run = RunOf(R"pb(
    run_id: "r-1"
    status: RUN_STATUS_PAUSED
    error: "paused: tenant acme's daily budget of $5.0000 is reached: $4.9900 billed")pb");
  const std::string hint = BudgetResumeHint(run);
  EXPECT_THAT(hint, HasSubstr("a tenant budget stopped it, not the run's: `taskboard resume r-1`"));
  EXPECT_THAT(hint, ::testing::Not(HasSubstr("--budget")));
}

TEST(RunBilling, Hint_NoneForOtherErrorsOrRunsThatGoOn) {
  EXPECT_EQ(BudgetResumeHint(RunOf(R"pb(run_id: "r-1"
                                        status: RUN_STATUS_FAILED
                                        error: "exit status 3")pb")),
            "");
  EXPECT_EQ(
      BudgetResumeHint(RunOf(R"pb(run_id: "r-1"
                                  status: RUN_STATUS_RUNNING
                                  error: "paused: run r-1's budget of $1.0000 is reached")pb")),
      "");
}

}  // namespace
}  // namespace taskboard::cli
