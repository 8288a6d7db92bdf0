#include "scheduler/store/keys.h"

#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::store::keys {
namespace {

using ::testing::Optional;

TEST(Keys, Schedule_TenantsAreSeparatePrefixes) {
  EXPECT_TRUE(absl::StartsWith(Schedule("acme", "nightly"), TenantSchedules("acme")));
  EXPECT_TRUE(absl::StartsWith(Schedule("acme", "nightly"), AllSchedules()));
  // "acme" and "acme2" do not share a prefix, nor do ("a", "b/c") and ("a/b", "c").
  EXPECT_FALSE(absl::StartsWith(Schedule("acme2", "x"), TenantSchedules("acme")));
  EXPECT_NE(Schedule("a", "b/c"), Schedule("a/b", "c"));
}

TEST(Keys, Task_RoundTrips) {
  std::optional<TaskKey> parsed = ParseTask(Task("run-1", "phase/3"));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->run_id, "run-1");
  EXPECT_EQ(parsed->task_id, "phase/3");
}

TEST(Keys, TaskKeyLess_IsTheOrderOfTheTasksKeys) {
  const std::vector<std::string> ids = {"t10", "t9", "b", "t100", "a", "t2", "", "zz"};
  for (const std::string& a : ids) {
    for (const std::string& b : ids) {
      EXPECT_EQ(TaskKeyLess(a, b), Task("run-1", a) < Task("run-1", b)) << a << " " << b;
    }
  }
}

TEST(Keys, Task_PrefixOfRunDoesNotMatchLongerRunId) {
  // "a" must not be a prefix of run "ab"'s keys: length prefixes keep them apart.
  EXPECT_FALSE(Task("ab", "x").starts_with(TasksOfRun("a")));
  EXPECT_TRUE(Task("a", "x").starts_with(TasksOfRun("a")));
}

TEST(Keys, RunPhaseItems_OutsideThePhasesRange_InIndexOrder) {
  // ReadRunPhases parses every key under RunPhases(run) as a phase record:
  // the items must never fall in that range, nor in another run's.
  const std::string phases = RunPhases("run-1");
  EXPECT_FALSE(absl::StartsWith(RunPhaseItems("run-1", 0), phases));
  EXPECT_TRUE(absl::StartsWith(RunPhase("run-1", 7), phases));
  EXPECT_TRUE(absl::StartsWith(RunPhaseItems("run-1", 7), RunPhaseItemsOfRun("run-1")));
  EXPECT_FALSE(absl::StartsWith(RunPhaseItems("run-10", 0), RunPhaseItemsOfRun("run-1")));
  EXPECT_LT(RunPhaseItems("run-1", 9), RunPhaseItems("run-1", 10));
  EXPECT_LT(RunPhase("run-1", 9), RunPhase("run-1", 10));
}

TEST(Keys, Event_SeqOrderIsByteOrder) {
  EXPECT_LT(Event("r", 2), Event("r", 10));
  EXPECT_LT(Event("r", 255), Event("r", 256));
  EXPECT_LT(Event("r", 1ull << 40), Event("r", (1ull << 40) + 1));
  std::optional<SeqKey> parsed = ParseEvent(Event("r", 1234567890123ull));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->id, "r");
  EXPECT_EQ(parsed->seq, 1234567890123ull);
}

TEST(Keys, Ledger_EntriesAndTaskIndexAreSeparateRanges) {
  const std::string entry = LedgerEntry("req", 7);
  const std::string index = LedgerTaskIndex("req", "t1", 7);
  EXPECT_TRUE(entry.starts_with(LedgerOfRequest("req")));
  EXPECT_FALSE(index.starts_with(LedgerOfRequest("req")));
  EXPECT_TRUE(index.starts_with(LedgerIndexOfTask("req", "t1")));
  EXPECT_FALSE(LedgerTaskIndex("req", "t10", 1).starts_with(LedgerIndexOfTask("req", "t1")));
  EXPECT_THAT(TrailingSeq(index), Optional(7u));
  std::optional<SeqKey> parsed = ParseLedgerEntry(entry);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->seq, 7u);
  EXPECT_FALSE(ParseLedgerEntry(index).has_value());
}

TEST(Keys, Flow_VersionsOrderedAndParsed) {
  EXPECT_LT(Flow("acme", "digest", 9), Flow("acme", "digest", 10));
  std::optional<FlowKey> parsed = ParseFlow(Flow("acme", "digest", 3));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->tenant, "acme");
  EXPECT_EQ(parsed->name, "digest");
  EXPECT_EQ(parsed->version, 3u);
  EXPECT_TRUE(Flow("acme", "digest", 3).starts_with(FlowVersions("acme", "digest")));
}

TEST(Keys, Flow_ATenantsFlowsAreOnePrefix) {
  EXPECT_TRUE(Flow("acme", "digest", 1).starts_with(TenantFlows("acme")));
  EXPECT_TRUE(Flow("", "digest", 1).starts_with(TenantFlows("")));
  // Neither a longer tenant name nor the empty tenant shares acme's prefix.
  EXPECT_FALSE(Flow("acme2", "digest", 1).starts_with(TenantFlows("acme")));
  EXPECT_FALSE(Flow("acme", "digest", 1).starts_with(TenantFlows("")));
  EXPECT_FALSE(Flow("acme", "digest-2", 1).starts_with(FlowVersions("acme", "digest")));
}

TEST(Keys, Flow_LegacyAndTenantLayoutsNeverParseAsEachOther) {
  const std::string legacy = LegacyFlow("acme/digest", 7);
  EXPECT_FALSE(ParseFlow(legacy).has_value());
  std::optional<FlowKey> old = ParseLegacyFlow(legacy);
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->tenant, "acme");
  EXPECT_EQ(old->name, "digest");
  EXPECT_EQ(old->version, 7u);
  std::optional<FlowKey> untenanted = ParseLegacyFlow(LegacyFlow("digest", 2));
  ASSERT_TRUE(untenanted.has_value());
  EXPECT_EQ(untenanted->tenant, "");
  EXPECT_EQ(untenanted->name, "digest");
  for (const std::string& key :
       {Flow("acme", "digest", 7), Flow("", "digest", 2), Flow("", "", 0)}) {
    EXPECT_FALSE(ParseLegacyFlow(key).has_value()) << absl::CHexEscape(key);
  }
}

TEST(Keys, Parse_MalformedKeys_ReturnNothing) {
  EXPECT_FALSE(ParseTask("").has_value());
  EXPECT_FALSE(ParseTask(std::string("\0\0\0\x09"
                                     "short",
                                     9))
                   .has_value());
  EXPECT_FALSE(ParseEvent(Event("r", 1) + "x").has_value());
  EXPECT_FALSE(TrailingSeq("abc").has_value());
}

}  // namespace
}  // namespace taskboard::store::keys
