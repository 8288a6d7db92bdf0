#include "scheduler/policy/prior_work_policy.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/policy/in_memory_task_graph.h"
#include "scheduler/policy/request_ledger.h"
#include "scheduler/policy/token_estimate.h"
#include "tests/unit/policy/ledger_fixture.h"

namespace taskboard::policy {
namespace {

using ::taskboard::policy::fixture::AppendSeedFixture;
using ::taskboard::policy::fixture::ErrorObs;
using ::taskboard::policy::fixture::Obs;
using ::taskboard::policy::fixture::Seqs;
using ::taskboard::policy::fixture::Task;
using ::taskboard::policy::fixture::Tools;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

v1::FlowPolicy None() {
  v1::FlowPolicy policy;
  policy.mutable_none();
  return policy;
}

v1::FlowPolicy DeclaredDepsOnly() {
  v1::FlowPolicy policy;
  policy.mutable_declared_deps_only();
  return policy;
}

v1::FlowPolicy Ancestors(bool transitive) {
  v1::FlowPolicy policy;
  policy.mutable_ancestors()->set_transitive(transitive);
  return policy;
}

v1::FlowPolicy RecentTrajectory(int n, int64_t max_tokens = 0) {
  v1::FlowPolicy policy;
  policy.mutable_recent_trajectory()->set_n(n);
  policy.mutable_recent_trajectory()->set_max_tokens(max_tokens);
  return policy;
}

v1::FlowPolicy AllCompleted(int64_t max_tokens = 0) {
  v1::FlowPolicy policy;
  policy.mutable_all_completed()->set_max_tokens(max_tokens);
  return policy;
}

v1::FlowPolicy Compact(int recent_n) {
  v1::FlowPolicy policy;
  policy.mutable_compact()->set_recent_n(recent_n);
  policy.mutable_compact()->set_summarizer_agent("summarizer");
  return policy;
}

// The seed's fixture with a task `x` (deps as given) about to be dispatched.
class SeedFixtureTest : public ::testing::Test {
 protected:
  SeedFixtureTest() { AppendSeedFixture(ledger_); }

  v1::PriorWork Select(const v1::FlowPolicy& policy, std::vector<std::string> deps = {}) {
    std::vector<TaskKey> keys;
    for (const std::string& dep : deps) keys.push_back(Task(dep));
    graph_.AddTask(Task("x"), keys);
    return SelectPriorWork(policy, {ledger_, graph_, Task("x")});
  }

  RequestLedger ledger_{"run-1"};
  InMemoryTaskGraph graph_;
};

TEST_F(SeedFixtureTest, None_SelectsNothing) {
  v1::PriorWork prior_work = Select(None(), {"a"});
  EXPECT_THAT(prior_work.observations(), IsEmpty());
  EXPECT_EQ(prior_work.meta().policy(), "none");
  EXPECT_EQ(prior_work.meta().available(), 5);
}

TEST_F(SeedFixtureTest, DeclaredDepsOnly_DepA_SelectsAsTwoCalls) {
  v1::PriorWork prior_work = Select(DeclaredDepsOnly(), {"a"});
  EXPECT_THAT(Tools(prior_work), ElementsAre("t1", "t2"));
  for (const v1::Observation& obs : prior_work.observations()) EXPECT_EQ(obs.task_id(), "a");
  EXPECT_EQ(prior_work.meta().policy(), "declared_deps_only");
}

TEST_F(SeedFixtureTest, DeclaredDepsOnly_NoDeps_SelectsNothing) {
  v1::PriorWork prior_work = Select(DeclaredDepsOnly());
  EXPECT_THAT(prior_work.observations(), IsEmpty());
  EXPECT_EQ(prior_work.meta().policy(), "declared_deps_only");
}

TEST_F(SeedFixtureTest, UnsetPolicy_SelectsLikeDeclaredDepsOnly) {
  v1::PriorWork prior_work = Select(v1::FlowPolicy(), {"b"});
  EXPECT_THAT(Tools(prior_work), ElementsAre("t3", "t4"));
  EXPECT_TRUE(prior_work.observations(1).cached());
  EXPECT_EQ(prior_work.meta().policy(), "declared_deps_only");
}

TEST_F(SeedFixtureTest, RecentTrajectory_N3_SelectsLastThreeInOrder) {
  v1::PriorWork prior_work = Select(RecentTrajectory(3));
  EXPECT_THAT(Tools(prior_work), ElementsAre("t3", "t4", "t5"));
  EXPECT_EQ(prior_work.meta().policy(), "recent_trajectory");
}

TEST_F(SeedFixtureTest, RecentTrajectory_NZero_DefaultsToEight) {
  EXPECT_THAT(Seqs(Select(RecentTrajectory(0))), ElementsAre(1, 2, 3, 4, 5));
}

TEST_F(SeedFixtureTest, RecentTrajectory_MaxTokens_KeepsNewestThatFit) {
  v1::PriorWork prior_work = Select(RecentTrajectory(5, /*max_tokens=*/7));
  EXPECT_THAT(Tools(prior_work), ElementsAre("t4", "t5"));
  EXPECT_EQ(prior_work.meta().tokens_approx(), 6);
  EXPECT_EQ(prior_work.meta().selected(), 2);
  EXPECT_EQ(prior_work.meta().available(), 5);
}

TEST_F(SeedFixtureTest, AncestorsDirect_DepA_SelectsAsCalls) {
  graph_.AddTask(Task("a"), {});
  v1::PriorWork prior_work = Select(Ancestors(false), {"a"});
  EXPECT_THAT(Tools(prior_work), ElementsAre("t1", "t2"));
  EXPECT_EQ(prior_work.meta().policy(), "ancestors");
}

TEST_F(SeedFixtureTest, AllCompleted_OnlyACompleted_SelectsAsCalls) {
  graph_.AddTask(Task("a"), {}, /*completed=*/true);
  graph_.AddTask(Task("b"), {}, /*completed=*/false);
  v1::PriorWork prior_work = Select(AllCompleted());
  EXPECT_THAT(Tools(prior_work), ElementsAre("t1", "t2"));
  EXPECT_EQ(prior_work.meta().policy(), "all_completed");
}

TEST_F(SeedFixtureTest, AllCompleted_MaxTokens_NewestCompletedThatFit) {
  graph_.AddTask(Task("a"), {}, true);
  graph_.AddTask(Task("b"), {}, true);
  v1::PriorWork prior_work = Select(AllCompleted(/*max_tokens=*/9));
  EXPECT_THAT(Tools(prior_work), ElementsAre("t2", "t3", "t4"));
  EXPECT_EQ(prior_work.meta().tokens_approx(), 9);
}

TEST_F(SeedFixtureTest, Compact_WithoutNarrative_SelectsRecentWindow) {
  v1::PriorWork prior_work = Select(Compact(2));
  EXPECT_THAT(Tools(prior_work), ElementsAre("t4", "t5"));
  EXPECT_EQ(prior_work.narrative(), "");
  EXPECT_EQ(prior_work.meta().policy(), "compact");
}

TEST_F(SeedFixtureTest, CustomExternal_FallsBackToDeclaredDeps) {
  v1::FlowPolicy policy;
  policy.mutable_custom()->set_external("localhost:7000");
  policy.mutable_custom()->set_recent(5);  // ignored when external is set
  v1::PriorWork prior_work = Select(policy, {"a"});
  EXPECT_THAT(Tools(prior_work), ElementsAre("t1", "t2"));
  EXPECT_EQ(prior_work.meta().policy(), "declared_deps_only");
  EXPECT_THAT(prior_work.meta().fallback_reason(), HasSubstr("PolicyService"));
}

// Every policy reports policy, selected, available and tokens_approx that
// match what it selected.
TEST_F(SeedFixtureTest, EveryPolicy_MetaMatchesSelection) {
  graph_.AddTask(Task("a"), {}, true);
  v1::FlowPolicy custom;
  custom.mutable_custom()->set_deps(true);
  custom.mutable_custom()->set_recent(1);
  const std::vector<std::pair<v1::FlowPolicy, std::string>> policies = {
      {None(), "none"},
      {DeclaredDepsOnly(), "declared_deps_only"},
      {Ancestors(true), "ancestors"},
      {RecentTrajectory(4), "recent_trajectory"},
      {AllCompleted(), "all_completed"},
      {Compact(3), "compact"},
      {custom, "custom"},
  };
  for (const auto& [policy, name] : policies) {
    SCOPED_TRACE(name);
    v1::PriorWork prior_work = Select(policy, {"a"});
    EXPECT_EQ(prior_work.meta().policy(), name);
    EXPECT_EQ(prior_work.meta().selected(), prior_work.observations_size());
    EXPECT_EQ(prior_work.meta().available(), 5);
    int64_t tokens = 0;
    for (const v1::Observation& obs : prior_work.observations()) tokens += EstimateTokens(obs);
    EXPECT_EQ(prior_work.meta().tokens_approx(), tokens);
    EXPECT_TRUE(prior_work.meta().fallback_reason().empty());
    if (name != "none") EXPECT_GT(prior_work.observations_size(), 0);
  }
}

TEST(SelectPriorWork, EmptyLedger_AvailableZero) {
  RequestLedger ledger;
  InMemoryTaskGraph graph;
  v1::PriorWork prior_work = SelectPriorWork(RecentTrajectory(8), {ledger, graph, Task("x")});
  EXPECT_THAT(prior_work.observations(), IsEmpty());
  EXPECT_EQ(prior_work.meta().available(), 0);
  EXPECT_EQ(prior_work.meta().selected(), 0);
}

// a <- b, a <- c, {b, c} <- d: the diamond; d is dispatched (its second
// attempt: it has observations of its own).
class DiamondTest : public ::testing::Test {
 protected:
  DiamondTest() {
    graph_.AddTask(Task("a"), {}, true);
    graph_.AddTask(Task("b"), {Task("a")}, true);
    graph_.AddTask(Task("c"), {Task("a")}, true);
    graph_.AddTask(Task("d"), {Task("b"), Task("c"), Task("b")});
    ledger_.Append(Obs("a", "ta", "{}", "1"));   // 1
    ledger_.Append(Obs("b", "tb", "{}", "2"));   // 2
    ledger_.Append(Obs("d", "td", "{}", "3"));   // 3: d's failed first attempt
    ledger_.Append(Obs("c", "tc", "{}", "4"));   // 4
    ledger_.Append(Obs("e", "te", "{}", "5"));   // 5: unrelated task
    ledger_.Append(Obs("a", "ta2", "{}", "6"));  // 6
  }

  v1::PriorWork Select(const v1::FlowPolicy& policy) {
    return SelectPriorWork(policy, {ledger_, graph_, Task("d")});
  }

  RequestLedger ledger_;
  InMemoryTaskGraph graph_;
};

TEST_F(DiamondTest, AncestorsDirect_OnlyDirectDepsOnce) {
  EXPECT_THAT(Seqs(Select(Ancestors(false))), ElementsAre(2, 4));
}

TEST_F(DiamondTest, AncestorsTransitive_WholeClosureOnceInOrder) {
  EXPECT_THAT(Seqs(Select(Ancestors(true))), ElementsAre(1, 2, 4, 6));
}

TEST_F(DiamondTest, DeclaredDepsOnly_DuplicateDepCountedOnceAndNotSelf) {
  EXPECT_THAT(Seqs(Select(DeclaredDepsOnly())), ElementsAre(2, 4));
}

TEST_F(DiamondTest, RecentTrajectory_IncludesOwnEarlierAttempt) {
  EXPECT_THAT(Seqs(Select(RecentTrajectory(4))), ElementsAre(3, 4, 5, 6));
}

TEST_F(DiamondTest, AllCompleted_OnlyCompletedTasks) {
  EXPECT_THAT(Seqs(Select(AllCompleted())), ElementsAre(1, 2, 4, 6));
}

TEST(Ancestors, SelfDependencyAndCycle_Tolerated) {
  RequestLedger ledger;
  ledger.Append(Obs("x", "tx", "{}", "1"));
  ledger.Append(Obs("y", "ty", "{}", "2"));
  InMemoryTaskGraph graph;
  graph.AddTask(Task("x"), {Task("x"), Task("y")});
  graph.AddTask(Task("y"), {Task("x")});
  EXPECT_THAT(Seqs(SelectPriorWork(Ancestors(true), {ledger, graph, Task("x")})), ElementsAre(2));
  EXPECT_THAT(Seqs(SelectPriorWork(DeclaredDepsOnly(), {ledger, graph, Task("x")})),
              ElementsAre(2));
}

TEST(Ancestors, DepInChildRun_SelectedByRunAndTask) {
  RequestLedger ledger("run-1");
  ledger.Append(Obs("step", "t", "{}", "1", false, "child-run"));
  ledger.Append(Obs("step", "t", "{}", "2", false, "run-1"));
  InMemoryTaskGraph graph;
  graph.AddTask(Task("x"), {TaskKey{"child-run", "step"}});
  EXPECT_THAT(Seqs(SelectPriorWork(DeclaredDepsOnly(), {ledger, graph, Task("x")})),
              ElementsAre(1));
}

// custom: a union of selectors, each observation once, then max_tokens.
class CustomTest : public ::testing::Test {
 protected:
  CustomTest() {
    graph_.AddTask(Task("x"), {Task("a")});
    graph_.AddTask(Task("a"), {Task("root")});
    ledger_.Append(Obs("root", "search", "{}", "1"));      // 1
    ledger_.Append(Obs("a", "read_file", "{}", "2"));      // 2
    ledger_.Append(ErrorObs("a", "http_get", "{}", "e"));  // 3
    ledger_.Append(Obs("z", "read_file", "{}", "4"));      // 4
    ledger_.Append(ErrorObs("z", "search", "{}", "e"));    // 5
    ledger_.Append(Obs("z", "list_files", "{}", "6"));     // 6
    ledger_.Append(Obs("", "search", "{}", "7"));          // 7
  }

  v1::PriorWork Select(const v1::CustomPolicy& custom) {
    v1::FlowPolicy policy;
    *policy.mutable_custom() = custom;
    return SelectPriorWork(policy, {ledger_, graph_, Task("x")});
  }

  RequestLedger ledger_;
  InMemoryTaskGraph graph_;
};

TEST_F(CustomTest, NoSelectors_SelectsNothing) {
  v1::PriorWork prior_work = Select(v1::CustomPolicy());
  EXPECT_THAT(prior_work.observations(), IsEmpty());
  EXPECT_EQ(prior_work.meta().policy(), "custom");
}

TEST_F(CustomTest, Deps_DirectDepsOnly) {
  v1::CustomPolicy custom;
  custom.set_deps(true);
  EXPECT_THAT(Seqs(Select(custom)), ElementsAre(2, 3));
}

TEST_F(CustomTest, Ancestors_Transitive) {
  v1::CustomPolicy custom;
  custom.set_ancestors(true);
  EXPECT_THAT(Seqs(Select(custom)), ElementsAre(1, 2, 3));
}

TEST_F(CustomTest, Errors_EveryErroredObservation) {
  v1::CustomPolicy custom;
  custom.set_errors(true);
  EXPECT_THAT(Seqs(Select(custom)), ElementsAre(3, 5));
}

TEST_F(CustomTest, Tools_EveryCallOfThoseTools) {
  v1::CustomPolicy custom;
  custom.add_tools("read_file");
  custom.add_tools("list_files");
  custom.add_tools("read_file");
  EXPECT_THAT(Seqs(Select(custom)), ElementsAre(2, 4, 6));
}

TEST_F(CustomTest, Recent_LastN) {
  v1::CustomPolicy custom;
  custom.set_recent(2);
  EXPECT_THAT(Seqs(Select(custom)), ElementsAre(6, 7));
}

TEST_F(CustomTest, OverlappingSelectors_UnionWithoutDuplicatesInOrder) {
  v1::CustomPolicy custom;
  custom.set_deps(true);       // 2, 3
  custom.set_ancestors(true);  // 1, 2, 3
  custom.set_errors(true);     // 3, 5
  custom.add_tools("search");  // 1, 5, 7
  custom.set_recent(2);        // 6, 7
  v1::PriorWork prior_work = Select(custom);
  EXPECT_THAT(Seqs(prior_work), ElementsAre(1, 2, 3, 5, 6, 7));
  EXPECT_EQ(prior_work.meta().selected(), 6);
}

TEST_F(CustomTest, MaxTokens_AppliedToTheUnion) {
  v1::CustomPolicy custom;
  custom.add_tools("search");  // 1, 5, 7
  custom.set_deps(true);       // 2, 3
  // Successful calls here estimate at 1 token (`{}` + 1 char), errors at 2
  // (`{}` + `"e"`). Newest first: 7 (1), 5 (2, total 3), 3 (2, total 5 > 4)
  // stops the walk.
  custom.set_max_tokens(4);
  v1::PriorWork prior_work = Select(custom);
  EXPECT_THAT(Seqs(prior_work), ElementsAre(5, 7));
  EXPECT_EQ(prior_work.meta().tokens_approx(), 3);
}

}  // namespace
}  // namespace taskboard::policy
