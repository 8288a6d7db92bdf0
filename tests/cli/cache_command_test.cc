// `taskboard cache` end to end against a scripted scheduler (what it sends,
// the table it prints, refusals), plus the table's hit ratio.

#include "tools/cli/cache_command.h"

#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/fake_scheduler.h"
#include "tools/cli/cache_table.h"

namespace taskboard::cli {
namespace {

using testing::Cli;
using testing::FakeScheduler;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::ParseText;

v1::GetCacheStatsResponse TwoTenants() {
  return ParseText<v1::GetCacheStatsResponse>(R"pb(
    rows {
      tenant: "acme"
      scope: CACHE_SCOPE_RUN
      tool: "read_file"
      entries: 12
      hits: 30
      misses: 12
      coalesced: 2
    }
    rows { tenant: "acme" scope: CACHE_SCOPE_SESSION tool: "http_get" }
    rows { tenant: "" scope: CACHE_SCOPE_REQUEST tool: "list_files" entries: 1 misses: 1 }
    entries: 13
    max_entries_per_tenant: 100000
  )pb");
}

TEST(CacheTable, OneLinePerRowThenTotal) {
  std::ostringstream out;
  PrintCacheTable(TwoTenants(), 0, out);
  EXPECT_EQ(out.str(),
            "TENANT  SCOPE    TOOL        ENTRIES  HITS  MISSES  COALESCED  HIT%\n"
            "acme    run      read_file   12       30    12      2          68.2%\n"
            "acme    session  http_get    0        0     0       0          -\n"
            "-       request  list_files  1        0     1       0          0.0%\n"
            "TOTAL                        13       30    13      2          66.7%\n");
}

TEST(CacheTable, HitRatio_HitsOverAllLookups_DashWithoutLookups) {
  EXPECT_EQ(FormatHitRatio(0, 0, 0), "-");
  EXPECT_EQ(FormatHitRatio(3, 1, 0), "75.0%");
  EXPECT_EQ(FormatHitRatio(1, 1, 1), "33.3%");
  EXPECT_EQ(FormatHitRatio(0, 0, 4), "0.0%");
  EXPECT_EQ(FormatHitRatio(5, 0, 0), "100.0%");
}

TEST(CacheCommand, SendsTenantAndPrintsTheTable) {
  FakeScheduler scheduler;
  scheduler.SetCacheStats(TwoTenants());
  testing::CliResult result =
      Cli({"cache", "--tenant", "acme", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(scheduler.cache_stats_request().tenant(), "acme");
  EXPECT_THAT(result.out,
              HasSubstr("acme    run      read_file   12       30    12      2          68.2%\n"));
  EXPECT_THAT(result.err, IsEmpty());
}

TEST(CacheCommand, NoFlags_AsksForEveryTenant) {
  FakeScheduler scheduler;
  scheduler.SetCacheStats(TwoTenants());
  testing::CliResult result = Cli({"cache", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(scheduler.cache_stats_request().tenant(), "");
}

TEST(CacheCommand, Empty_SaysSo) {
  FakeScheduler scheduler;
  testing::CliResult result =
      Cli({"cache", "--tenant", "acme", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, IsEmpty());
  EXPECT_EQ(result.err,
            "no tool cache entries or lookups for tenant acme since the scheduler started\n");
}

TEST(CacheCommand, Json_PrintsTheResponse) {
  FakeScheduler scheduler;
  scheduler.SetCacheStats(TwoTenants());
  testing::CliResult result = Cli({"cache", "--json", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr(R"("maxEntriesPerTenant": "100000")"));
  EXPECT_THAT(result.out, HasSubstr(R"("scope": "CACHE_SCOPE_SESSION")"));
}

TEST(CacheCommand, AnotherTenant_Exits1WithTheSchedulersMessage) {
  FakeScheduler scheduler;
  scheduler.FailNextCall(grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                                      "the token of 'alice' reads tenant 'acme' only, not 'beta'"));
  testing::CliResult result =
      Cli({"cache", "--tenant", "beta", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("PERMISSION_DENIED: the token of 'alice' reads tenant"));
}

}  // namespace
}  // namespace taskboard::cli
