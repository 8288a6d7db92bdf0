#include "scheduler/policy/external_policy.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/policy/in_memory_task_graph.h"
#include "scheduler/policy/request_ledger.h"
#include "tests/unit/policy/ledger_fixture.h"

namespace taskboard::policy {
namespace {

using ::taskboard::policy::fixture::AppendSeedFixture;
using ::taskboard::policy::fixture::Seqs;
using ::taskboard::policy::fixture::Task;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

v1::PolicyTaskView View(const std::string& task_id, std::vector<std::string> deps,
                        v1::TaskState state) {
  v1::PolicyTaskView view;
  view.set_run_id("run-1");
  view.set_task_id(task_id);
  for (std::string& dep : deps) view.add_deps(std::move(dep));
  view.set_state(state);
  return view;
}

std::vector<int64_t> LedgerSeqs(const v1::SelectPriorWorkRequest& request) {
  std::vector<int64_t> seqs;
  for (const v1::Observation& obs : request.ledger()) seqs.push_back(obs.seq());
  return seqs;
}

class ExternalPolicyTest : public ::testing::Test {
 protected:
  ExternalPolicyTest() {
    AppendSeedFixture(ledger_);
    graph_.AddTask(Task("x"), {Task("a"), TaskKey{"child-run", "step"}});
  }

  PolicyInput Input() { return {ledger_, graph_, Task("x")}; }

  RequestLedger ledger_{"root-run"};
  InMemoryTaskGraph graph_;
};

TEST_F(ExternalPolicyTest, IsExternalPolicy_OnlyCustomWithAddress) {
  v1::FlowPolicy policy;
  EXPECT_FALSE(IsExternalPolicy(policy));
  policy.mutable_custom()->set_errors(true);
  EXPECT_FALSE(IsExternalPolicy(policy));
  policy.mutable_custom()->set_external("policy:7000");
  EXPECT_TRUE(IsExternalPolicy(policy));
}

TEST_F(ExternalPolicyTest, BuildRequest_NewestCandidatesInOrderAndTaskViewFromTasks) {
  const std::vector<v1::PolicyTaskView> tasks = {
      View("a", {}, v1::TASK_STATE_COMPLETED),
      View("x", {"a"}, v1::TASK_STATE_DISPATCHED),
  };
  v1::SelectPriorWorkRequest request = BuildExternalRequest(Input(), tasks, 3);
  EXPECT_EQ(request.run_id(), "run-1");
  EXPECT_EQ(request.root_run_id(), "root-run");
  EXPECT_EQ(request.task().task_id(), "x");
  EXPECT_EQ(request.task().state(), v1::TASK_STATE_DISPATCHED);
  EXPECT_EQ(request.tasks_size(), 2);
  EXPECT_THAT(LedgerSeqs(request), ElementsAre(3, 4, 5));
  EXPECT_EQ(request.ledger(1).tool_name(), "t4");
  EXPECT_TRUE(request.ledger(1).cached());
}

TEST_F(ExternalPolicyTest, BuildRequest_TaskMissingFromTasks_ViewBuiltFromGraph) {
  v1::SelectPriorWorkRequest request = BuildExternalRequest(Input(), {}, 10);
  EXPECT_EQ(request.task().run_id(), "run-1");
  EXPECT_EQ(request.task().task_id(), "x");
  EXPECT_THAT(request.task().deps(), ElementsAre("a", "child-run/step"));
  EXPECT_EQ(request.task().state(), v1::TASK_STATE_READY);
  EXPECT_THAT(LedgerSeqs(request), ElementsAre(1, 2, 3, 4, 5));
}

TEST_F(ExternalPolicyTest, BuildRequest_NoCandidatesAllowed_EmptyLedger) {
  EXPECT_THAT(BuildExternalRequest(Input(), {}, 0).ledger(), IsEmpty());
  EXPECT_THAT(BuildExternalRequest(Input(), {}, -4).ledger(), IsEmpty());
}

TEST_F(ExternalPolicyTest, BuildRequest_LedgerWithoutRootRunId_TaskRunUsed) {
  RequestLedger ledger;
  v1::SelectPriorWorkRequest request = BuildExternalRequest({ledger, graph_, Task("x")}, {}, 10);
  EXPECT_EQ(request.root_run_id(), "run-1");
}

TEST_F(ExternalPolicyTest, ApplyResponse_UnknownIgnoredDuplicatesRemovedChronological) {
  v1::SelectPriorWorkResponse response;
  for (int64_t seq : {5, 2, 99, 2, 0, -1, 4}) response.add_seqs(seq);
  response.set_narrative("abcdefgh");
  v1::PriorWork prior_work = ApplyExternalResponse(response, Input());
  EXPECT_THAT(Seqs(prior_work), ElementsAre(2, 4, 5));
  EXPECT_EQ(prior_work.narrative(), "abcdefgh");
  EXPECT_EQ(prior_work.meta().policy(), "custom");
  EXPECT_EQ(prior_work.meta().selected(), 3);
  EXPECT_EQ(prior_work.meta().available(), 5);
  EXPECT_EQ(prior_work.meta().tokens_approx(), 3 * 3 + 2);
  EXPECT_TRUE(prior_work.meta().fallback_reason().empty());
}

TEST_F(ExternalPolicyTest, ApplyResponse_Empty_NothingSelected) {
  v1::PriorWork prior_work = ApplyExternalResponse(v1::SelectPriorWorkResponse(), Input());
  EXPECT_THAT(prior_work.observations(), IsEmpty());
  EXPECT_EQ(prior_work.meta().policy(), "custom");
}

TEST_F(ExternalPolicyTest, Fallback_DeclaredDepsWithReason) {
  v1::PriorWork prior_work =
      FallbackPriorWork(Input(), "PolicyService at policy:7000: deadline exceeded");
  EXPECT_THAT(Seqs(prior_work), ElementsAre(1, 2));
  EXPECT_EQ(prior_work.meta().policy(), "declared_deps_only");
  EXPECT_EQ(prior_work.meta().fallback_reason(), "PolicyService at policy:7000: deadline exceeded");
  EXPECT_EQ(prior_work.meta().available(), 5);
  EXPECT_EQ(prior_work.meta().tokens_approx(), 6);
}

}  // namespace
}  // namespace taskboard::policy
