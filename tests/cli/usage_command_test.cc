// `taskboard usage` end to end against a scripted scheduler (what it sends,
// the table it prints, what it refuses before calling), plus its parts: the
// `--since` forms and the table's groupings.

#include "tools/cli/usage_command.h"

#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/fake_scheduler.h"
#include "tools/cli/usage_budget_table.h"
#include "tools/cli/usage_since.h"
#include "tools/cli/usage_table.h"

namespace taskboard::cli {
namespace {

using ::testing::AllOf;
using testing::Cli;
using testing::FakeScheduler;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::ParseText;

// Two tenants, two models, two days; beta's model has no price.
v1::GetUsageResponse FourRows() {
  return ParseText<v1::GetUsageResponse>(R"pb(
    rows {
      tenant: "acme"
      model: "claude-haiku"
      day: "2026-10-27"
      requests: 100
      usage { input_tokens: 30000 output_tokens: 8000 cache_read_tokens: 10000 cost_usd: 0.18 }
      rate_limited: 2
    }
    rows {
      tenant: "acme"
      model: "claude-haiku"
      day: "2026-10-28"
      requests: 20
      usage { input_tokens: 8000 output_tokens: 1100 cache_read_tokens: 2000 cost_usd: 0.03 }
      rate_limited: 1
    }
    rows {
      tenant: "acme"
      model: "gpt-4o"
      day: "2026-10-28"
      requests: 14
      usage { input_tokens: 4200 output_tokens: 1000 cost_usd: 0.031 }
    }
    rows {
      tenant: "beta"
      model: "claude-haiku"
      day: "2026-10-28"
      requests: 5
      usage { input_tokens: 1000 output_tokens: 200 }
    }
  )pb");
}

std::string Table(UsageGrouping grouping) {
  std::ostringstream out;
  PrintUsageTable(FourRows(), grouping, 0, out);
  return out.str();
}

absl::Time Day(int year, int month, int day) {
  return absl::FromCivil(absl::CivilDay(year, month, day), absl::UTCTimeZone());
}

// --- the table ------------------------------------------------------------------

TEST(UsageTable, Default_OneLinePerTenantAndModelOverAllDaysThenTotal) {
  EXPECT_EQ(Table(UsageGrouping::kTenantModel),
            "TENANT  MODEL         REQUESTS  INPUT  OUTPUT  CACHED  COST    429s\n"
            "acme    claude-haiku  120       38k    9.1k    12k     $0.210  3\n"
            "acme    gpt-4o        14        4.2k   1.0k    0       $0.031  0\n"
            "beta    claude-haiku  5         1.0k   200     0       -       0\n"
            "TOTAL                 139       43k    10k     12k     $0.241  3\n");
}

TEST(UsageTable, ByDay_AddsTheDayColumn) {
  EXPECT_EQ(Table(UsageGrouping::kDay),
            "TENANT  MODEL         DAY         REQUESTS  INPUT  OUTPUT  CACHED  COST    429s\n"
            "acme    claude-haiku  2026-10-27  100       30k    8.0k    10k     $0.180  2\n"
            "acme    claude-haiku  2026-10-28  20        8.0k   1.1k    2.0k    $0.030  1\n"
            "acme    gpt-4o        2026-10-28  14        4.2k   1.0k    0       $0.031  0\n"
            "beta    claude-haiku  2026-10-28  5         1.0k   200     0       -       0\n"
            "TOTAL                             139       43k    10k     12k     $0.241  3\n");
}

TEST(UsageTable, ByModelOrTenant_SumsAcrossTheOther) {
  EXPECT_EQ(Table(UsageGrouping::kModel),
            "MODEL         REQUESTS  INPUT  OUTPUT  CACHED  COST    429s\n"
            "claude-haiku  125       39k    9.3k    12k     $0.210  3\n"
            "gpt-4o        14        4.2k   1.0k    0       $0.031  0\n"
            "TOTAL         139       43k    10k     12k     $0.241  3\n");
  EXPECT_EQ(Table(UsageGrouping::kTenant),
            "TENANT  REQUESTS  INPUT  OUTPUT  CACHED  COST    429s\n"
            "acme    134       42k    10k     12k     $0.241  3\n"
            "beta    5         1.0k   200     0       -       0\n"
            "TOTAL   139       43k    10k     12k     $0.241  3\n");
}

TEST(UsageTable, GroupingNames) {
  EXPECT_EQ(UsageGroupingFromName(""), UsageGrouping::kTenantModel);
  EXPECT_EQ(UsageGroupingFromName("day"), UsageGrouping::kDay);
  EXPECT_EQ(UsageGroupingFromName("model"), UsageGrouping::kModel);
  EXPECT_EQ(UsageGroupingFromName("tenant"), UsageGrouping::kTenant);
  EXPECT_EQ(UsageGroupingFromName("week"), std::nullopt);
}

// --- the budgets ----------------------------------------------------------------

// acme: half of its $0.03 a day; globex: a month's tokens, no dollar limit.
v1::GetUsageResponse WithBudgets(v1::GetUsageResponse usage) {
  usage.MergeFrom(ParseText<v1::GetUsageResponse>(R"pb(
    budgets {
      tenant: "acme"
      period: "day"
      period_start { seconds: 1795564800 }
      budget_usd: 0.03
      billed_usd: 0.015
      billed_tokens: 45
    }
    budgets {
      tenant: "globex"
      period: "month"
      period_start { seconds: 1793491200 }
      budget_tokens: 1000000
      billed_tokens: 7744
      billed_usd: 0.01
    }
  )pb"));
  return usage;
}

TEST(UsageBudgetTable, BilledAgainstEachLimitWithTheShareUsed) {
  std::ostringstream out;
  PrintBudgetTable(WithBudgets({}), 0, out);
  EXPECT_EQ(out.str(),
            "TENANT  PERIOD  FROM        COST                    TOKENS\n"
            "acme    day     2026-11-25  $0.015 of $0.030 (50%)  45\n"
            "globex  month   2026-11-01  $0.010                  7.7k of 1.0M (0%)\n");
}

TEST(UsageBudgetTable, NoBudgets_PrintsNothing) {
  std::ostringstream out;
  PrintBudgetTable(FourRows(), 0, out);
  EXPECT_THAT(out.str(), IsEmpty());
}

TEST(UsageCommand, Budgets_FollowTheUsageTable) {
  FakeScheduler scheduler;
  scheduler.SetUsage(WithBudgets(FourRows()));
  testing::CliResult result = Cli({"usage", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("$0.241  3\n\nTENANT  PERIOD  FROM        COST"));
  EXPECT_THAT(result.out, HasSubstr("acme    day     2026-11-25  $0.015 of $0.030 (50%)  45\n"));
}

TEST(UsageCommand, BudgetsWithoutUsage_StillPrinted) {
  FakeScheduler scheduler;
  scheduler.SetUsage(WithBudgets({}));
  testing::CliResult result =
      Cli({"usage", "--tenant", "acme", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("no LLM usage for tenant acme"));
  EXPECT_THAT(result.out, AllOf(HasSubstr("TENANT  PERIOD"), HasSubstr("globex  month")));
}

// --- --since --------------------------------------------------------------------

TEST(UsageSince, ADayIsItsMidnightUtc) {
  const absl::Time now = Day(2026, 11, 25) + absl::Hours(15);
  EXPECT_EQ(ParseUsageSince("2026-10-26", now).value(), Day(2026, 10, 26));
  EXPECT_EQ(UtcDayOf(Day(2026, 10, 26) + absl::Hours(23)), "2026-10-26");
}

TEST(UsageSince, ADurationCountsBackFromNow) {
  const absl::Time now = Day(2026, 11, 25) + absl::Hours(15);
  EXPECT_EQ(ParseUsageSince("7d", now).value(), now - absl::Hours(24 * 7));
  EXPECT_EQ(ParseUsageSince("24h", now).value(), now - absl::Hours(24));
  EXPECT_EQ(ParseUsageSince("1h30m", now).value(), now - absl::Minutes(90));
}

TEST(UsageSince, AnythingElseNamesBothForms) {
  const absl::Time now = Day(2026, 11, 25);
  for (const char* text :
       {"", "yesterday", "2026-02-30", "2026-10-26T00:00:00Z", "26/10/2026", "0", "-7d", "7"}) {
    const absl::StatusOr<absl::Time> since = ParseUsageSince(text, now);
    ASSERT_FALSE(since.ok()) << text;
    EXPECT_THAT(since.status().message(), AllOf(HasSubstr(absl::StrCat("'", text, "'")),
                                                HasSubstr("2026-10-26"), HasSubstr("7d")));
  }
}

// --- the command ----------------------------------------------------------------

TEST(UsageCommand, SendsTenantAndSinceAndPrintsTheTable) {
  FakeScheduler scheduler;
  scheduler.SetUsage(FourRows());
  testing::CliResult result = Cli(
      {"usage", "--tenant", "acme", "--since", "2026-10-26", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(scheduler.usage_request().tenant(), "acme");
  EXPECT_EQ(scheduler.usage_request().since().seconds(), absl::ToUnixSeconds(Day(2026, 10, 26)));
  EXPECT_THAT(result.out,
              AllOf(HasSubstr("TENANT  MODEL         REQUESTS  INPUT  OUTPUT  CACHED  COST    "
                              "429s\n"),
                    HasSubstr("\nTOTAL                 139       43k    10k     12k     $0.241  "
                              "3\n")));
  EXPECT_THAT(result.err, IsEmpty());
}

TEST(UsageCommand, SinceADuration_SendsThatLongBeforeNow) {
  FakeScheduler scheduler;
  scheduler.SetUsage(FourRows());
  const absl::Time before = absl::Now();
  testing::CliResult result =
      Cli({"usage", "--since", "7d", "--by", "day", "--scheduler", scheduler.address()});
  const absl::Time after = absl::Now();
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const int64_t since = scheduler.usage_request().since().seconds();
  EXPECT_GE(since, absl::ToUnixSeconds(before - absl::Hours(24 * 7)) - 1);
  EXPECT_LE(since, absl::ToUnixSeconds(after - absl::Hours(24 * 7)));
  EXPECT_THAT(result.out, HasSubstr("DAY"));
}

TEST(UsageCommand, NoFlags_EveryTenantAndTheSchedulersDefaultPeriod) {
  FakeScheduler scheduler;
  scheduler.SetUsage(FourRows());
  testing::CliResult result = Cli({"usage", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(scheduler.usage_request().tenant(), "");
  EXPECT_FALSE(scheduler.usage_request().has_since());
}

TEST(UsageCommand, NothingUsed_SaysSinceWhen) {
  FakeScheduler scheduler;
  testing::CliResult result = Cli(
      {"usage", "--tenant", "acme", "--since", "2026-10-26", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, IsEmpty());
  EXPECT_EQ(result.err, "no LLM usage for tenant acme since 2026-10-26\n");

  // The default period: 30 days back.
  result = Cli({"usage", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.err, absl::StrCat("no LLM usage since ",
                                     UtcDayOf(absl::Now() - absl::Hours(24 * 30)), "\n"));
}

TEST(UsageCommand, BadSinceOrBy_Exits2BeforeAnyCall) {
  FakeScheduler scheduler;
  testing::CliResult result =
      Cli({"usage", "--since", "last week", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, AllOf(HasSubstr("taskboard usage: --since 'last week'"),
                                HasSubstr("2026-10-26"), HasSubstr("7d")));
  result = Cli({"usage", "--by", "week", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "taskboard usage: --by 'week' is not a grouping: day, model or tenant\n");
  EXPECT_EQ(scheduler.calls(), 0);
}

TEST(UsageCommand, Json_PrintsTheResponse) {
  FakeScheduler scheduler;
  scheduler.SetUsage(FourRows());
  testing::CliResult result = Cli({"usage", "--json", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out,
              AllOf(HasSubstr(R"("day": "2026-10-27")"), HasSubstr(R"("rateLimited": "2")")));
}

TEST(UsageCommand, AnotherTenant_Exits1WithTheSchedulersMessage) {
  FakeScheduler scheduler;
  scheduler.FailNextCall(grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                                      "tenant acme may not read the usage of tenant beta"));
  testing::CliResult result =
      Cli({"usage", "--tenant", "beta", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("PERMISSION_DENIED: tenant acme may not read"));
}

}  // namespace
}  // namespace taskboard::cli
