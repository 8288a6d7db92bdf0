#include "scheduler/policy/compaction.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/policy/in_memory_task_graph.h"
#include "scheduler/policy/narrative_cache.h"
#include "scheduler/policy/request_ledger.h"
#include "tests/unit/policy/ledger_fixture.h"

namespace taskboard::policy {
namespace {

using ::taskboard::policy::fixture::ErrorObs;
using ::taskboard::policy::fixture::Obs;
using ::taskboard::policy::fixture::Seqs;
using ::taskboard::policy::fixture::Task;
using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Optional;

v1::CompactPolicy Compact(int recent_n, std::string summarizer = "summarizer") {
  v1::CompactPolicy policy;
  policy.set_recent_n(recent_n);
  policy.set_summarizer_agent(std::move(summarizer));
  return policy;
}

// Call i (1-based) is tool `t<i>` by task a, args {"i":i}, result i.
void AppendCalls(RequestLedger& ledger, int count) {
  for (int i = 0; i < count; ++i) {
    const int64_t n = ledger.size() + 1;
    ledger.Append(Obs("a", absl::StrCat("t", n), absl::StrCat("{\"i\":", n, "}"), absl::StrCat(n)));
  }
}

TEST(PlanCompaction, LedgerLongerThanWindow_SummarizesEverythingOlder) {
  RequestLedger ledger;
  AppendCalls(ledger, 12);
  CompactionPlan plan = PlanCompaction(Compact(4), ledger);
  EXPECT_TRUE(plan.needs_summary());
  EXPECT_EQ(plan.watermark, 8);
  EXPECT_EQ(plan.first_seq, 1);
  EXPECT_EQ(plan.previous_watermark, 0);
  EXPECT_THAT(plan.seqs(), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));
}

TEST(PlanCompaction, LedgerWithinWindow_NothingToSummarize) {
  RequestLedger ledger;
  AppendCalls(ledger, 4);
  CompactionPlan plan = PlanCompaction(Compact(4), ledger);
  EXPECT_FALSE(plan.needs_summary());
  EXPECT_EQ(plan.watermark, 0);
  EXPECT_THAT(plan.seqs(), IsEmpty());
}

TEST(PlanCompaction, ZeroRecentN_DefaultWindowOfEight) {
  RequestLedger ledger;
  AppendCalls(ledger, 10);
  EXPECT_EQ(PlanCompaction(Compact(0), ledger).watermark, 2);
}

TEST(PlanCompaction, NoSummarizerAgent_NothingToSummarize) {
  RequestLedger ledger;
  AppendCalls(ledger, 12);
  EXPECT_FALSE(PlanCompaction(Compact(4, ""), ledger).needs_summary());
}

TEST(PlanCompaction, PreviousWatermark_OnlyNewerSeqs) {
  RequestLedger ledger;
  AppendCalls(ledger, 12);
  CompactionPlan plan = PlanCompaction(Compact(4), ledger, /*previous_watermark=*/5);
  EXPECT_EQ(plan.watermark, 8);
  EXPECT_EQ(plan.previous_watermark, 5);
  EXPECT_THAT(plan.seqs(), ElementsAre(6, 7, 8));
}

TEST(PlanCompaction, PreviousWatermarkNotBelowWatermark_Ignored) {
  RequestLedger ledger;
  AppendCalls(ledger, 12);
  for (int64_t previous : {8, 20, -3}) {
    CompactionPlan plan = PlanCompaction(Compact(4), ledger, previous);
    EXPECT_EQ(plan.previous_watermark, 0) << previous;
    EXPECT_EQ(plan.first_seq, 1) << previous;
  }
}

TEST(SummarizerPrompt, Fresh_InstructionThenEveryPlannedCallAsALine) {
  RequestLedger ledger("run-1");
  AppendCalls(ledger, 2);
  ledger.Append(ErrorObs("b", "http_get", "{\"url\":\"x\"}", "timeout"));
  ledger.Append(Obs("step", "search", "{}", "[]", /*cached=*/true, "child-run"));
  AppendCalls(ledger, 1);
  CompactionPlan plan = PlanCompaction(Compact(1), ledger);
  ASSERT_EQ(plan.watermark, 4);
  const std::string prompt = SummarizerPrompt(ledger, plan).text;
  EXPECT_THAT(prompt, HasSubstr("Summarize the earlier tool calls"));
  EXPECT_THAT(prompt, EndsWith("\n\nTool calls 1-4:\n"
                               "- [a] t1({\"i\":1}) -> 1\n"
                               "- [a] t2({\"i\":2}) -> 2\n"
                               "- [b] http_get({\"url\":\"x\"}) -> ERROR: timeout\n"
                               "- [child-run/step] search({}) -> [] (cached)"));
  EXPECT_THAT(prompt, Not(HasSubstr("t5")));
}

TEST(SummarizerPrompt, Extending_PreviousNarrativeThenOnlyNewCalls) {
  RequestLedger ledger("run-1");
  AppendCalls(ledger, 10);
  CompactionPlan plan = PlanCompaction(Compact(2), ledger, /*previous_watermark=*/6);
  const std::string prompt = SummarizerPrompt(ledger, plan, "Looked up 1 to 6.").text;
  EXPECT_THAT(prompt, EndsWith("\n\nSummary so far (tool calls 1-6):\nLooked up 1 to 6.\n\n"
                               "Tool calls 7-8 to fold into it:\n"
                               "- [a] t7({\"i\":7}) -> 7\n"
                               "- [a] t8({\"i\":8}) -> 8"));
  EXPECT_THAT(prompt, Not(HasSubstr("t6(")));
}

TEST(SummarizerPrompt, OverTheLimit_OldestCallsThatFit_TheNextSummaryExtendsFromThere) {
  RequestLedger ledger("run-1");
  AppendCalls(ledger, 200);
  CompactionPlan plan = PlanCompaction(Compact(2), ledger);
  ASSERT_EQ(plan.watermark, 198);
  const SummaryPrompt whole = SummarizerPrompt(ledger, plan);
  EXPECT_EQ(whole.covers, 198);

  const size_t limit = whole.text.size() / 3;
  const SummaryPrompt first = SummarizerPrompt(ledger, plan, "", limit);
  EXPECT_LE(first.text.size(), limit);
  ASSERT_GT(first.covers, 1);
  ASSERT_LT(first.covers, 198);
  EXPECT_THAT(first.text, HasSubstr(absl::StrCat("\n\nTool calls 1-", first.covers, ":\n")));
  EXPECT_THAT(first.text, EndsWith(absl::StrCat("t", first.covers, "({\"i\":", first.covers,
                                                "}) -> ", first.covers)));

  // Folded in over a few summaries, each within the limit, none read twice.
  int64_t covered = first.covers;
  int summaries = 1;
  while (covered < plan.watermark && summaries < 10) {
    CompactionPlan extend = PlanCompaction(Compact(2), ledger, covered);
    const SummaryPrompt next = SummarizerPrompt(ledger, extend, "the story so far", limit);
    EXPECT_LE(next.text.size(), limit);
    EXPECT_THAT(next.text, HasSubstr(absl::StrCat("Tool calls ", covered + 1, "-", next.covers,
                                                  " to fold into it:\n- [a] t", covered + 1, "(")));
    ASSERT_GT(next.covers, covered);
    covered = next.covers;
    ++summaries;
  }
  EXPECT_EQ(covered, 198);
  EXPECT_GE(summaries, 3);
}

TEST(SummarizerPrompt, OneCallOverTheLimit_StillGoesIn) {
  RequestLedger ledger("run-1");
  AppendCalls(ledger, 5);
  const SummaryPrompt prompt = SummarizerPrompt(ledger, PlanCompaction(Compact(1), ledger), "", 1);
  EXPECT_EQ(prompt.covers, 1);
  EXPECT_THAT(prompt.text, EndsWith("Tool calls 1-1:\n- [a] t1({\"i\":1}) -> 1"));
}

TEST(ComposeCompact, RecentWindowPlusNarrativeAndMeta) {
  RequestLedger ledger;
  AppendCalls(ledger, 12);
  InMemoryTaskGraph graph;
  v1::PriorWork prior_work =
      ComposeCompact(Compact(3), {ledger, graph, Task("x")}, "Twelve calls so far.");
  EXPECT_THAT(Seqs(prior_work), ElementsAre(10, 11, 12));
  EXPECT_EQ(prior_work.narrative(), "Twelve calls so far.");
  EXPECT_EQ(prior_work.meta().policy(), "compact");
  EXPECT_EQ(prior_work.meta().selected(), 3);
  EXPECT_EQ(prior_work.meta().available(), 12);
  // Calls 10-12: `{"i":1x}` (8) + `1x` (2) = 10 chars -> 3 tokens each; the
  // 20-char narrative -> 5.
  EXPECT_EQ(prior_work.meta().tokens_approx(), 3 * 3 + 5);
}

TEST(NarrativeCache, Find_ExactWatermarkOnly) {
  NarrativeCache cache;
  EXPECT_EQ(cache.Find(8), nullptr);
  cache.Put(8, "up to 8");
  ASSERT_NE(cache.Find(8), nullptr);
  EXPECT_EQ(*cache.Find(8), "up to 8");
  EXPECT_EQ(cache.Find(7), nullptr);
  EXPECT_EQ(cache.Find(9), nullptr);
}

TEST(NarrativeCache, Put_SameWatermark_Replaces) {
  NarrativeCache cache;
  cache.Put(8, "old");
  cache.Put(8, "new");
  EXPECT_EQ(*cache.Find(8), "new");
  EXPECT_EQ(cache.size(), 1);
}

TEST(NarrativeCache, Latest_HighestAtOrBelow) {
  NarrativeCache cache;
  EXPECT_EQ(cache.Latest(100), std::nullopt);
  cache.Put(4, "four");
  cache.Put(9, "nine");
  EXPECT_EQ(cache.Latest(3), std::nullopt);
  std::optional<NarrativeCache::Narrative> latest = cache.Latest(8);
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->watermark, 4);
  EXPECT_EQ(latest->text, "four");
  EXPECT_EQ(cache.Latest(9)->watermark, 9);
  EXPECT_EQ(cache.Latest(50)->text, "nine");
}

TEST(NarrativeCache, MoreThanKept_OldestEvicted) {
  NarrativeCache cache;
  for (int w = 1; w <= NarrativeCache::kKept + 2; ++w) cache.Put(w, absl::StrCat("w", w));
  EXPECT_EQ(cache.size(), NarrativeCache::kKept);
  EXPECT_EQ(cache.Find(1), nullptr);
  EXPECT_EQ(cache.Find(2), nullptr);
  EXPECT_NE(cache.Find(NarrativeCache::kKept + 2), nullptr);
}

// The engine's loop from compaction.h: a summary at watermark W serves every
// dispatch until the ledger grows, and the next summary extends it.
TEST(Compaction, EngineFlow_NarrativeReusedUntilLedgerGrowsThenExtended) {
  RequestLedger ledger;
  AppendCalls(ledger, 12);
  InMemoryTaskGraph graph;
  NarrativeCache cache;
  const v1::CompactPolicy policy = Compact(4);

  CompactionPlan first = PlanCompaction(policy, ledger);
  ASSERT_EQ(first.watermark, 8);
  EXPECT_EQ(cache.Find(first.watermark), nullptr);  // summarizer needed
  cache.Put(first.watermark, "summary of 1-8");

  // A second dispatch at the same ledger size reuses it.
  CompactionPlan again = PlanCompaction(policy, ledger);
  ASSERT_NE(cache.Find(again.watermark), nullptr);
  v1::PriorWork prior_work =
      ComposeCompact(policy, {ledger, graph, Task("y")}, *cache.Find(again.watermark));
  EXPECT_EQ(prior_work.narrative(), "summary of 1-8");
  EXPECT_THAT(Seqs(prior_work), ElementsAre(9, 10, 11, 12));

  // The ledger grows: a new summary is needed, extending the last one.
  AppendCalls(ledger, 2);
  CompactionPlan grown = PlanCompaction(policy, ledger);
  EXPECT_EQ(grown.watermark, 10);
  EXPECT_EQ(cache.Find(grown.watermark), nullptr);
  std::optional<NarrativeCache::Narrative> previous = cache.Latest(grown.watermark);
  ASSERT_THAT(previous, Optional(::testing::Field(&NarrativeCache::Narrative::watermark, 8)));
  CompactionPlan extend = PlanCompaction(policy, ledger, previous->watermark);
  EXPECT_THAT(extend.seqs(), ElementsAre(9, 10));
  EXPECT_THAT(SummarizerPrompt(ledger, extend, previous->text).text, HasSubstr("summary of 1-8"));
}

}  // namespace
}  // namespace taskboard::policy
