#include "scheduler/policy/effective_policy.h"

#include "gtest/gtest.h"

namespace taskboard::policy {
namespace {

TEST(EffectivePolicy, Unset_DeclaredDepsOnlyForBoardTaskflowSupervisorAndUnspecified) {
  for (v1::FlowKind kind : {v1::FLOW_KIND_BOARD, v1::FLOW_KIND_TASKFLOW, v1::FLOW_KIND_SUPERVISOR,
                            v1::FLOW_KIND_UNSPECIFIED}) {
    SCOPED_TRACE(v1::FlowKind_Name(kind));
    EXPECT_EQ(EffectivePolicy(v1::FlowPolicy(), kind).policy_case(),
              v1::FlowPolicy::kDeclaredDepsOnly);
  }
}

TEST(EffectivePolicy, Unset_PlanAndExecute_RecentTrajectoryOfEight) {
  v1::FlowPolicy policy = EffectivePolicy(v1::FlowPolicy(), v1::FLOW_KIND_PLAN_AND_EXECUTE);
  ASSERT_EQ(policy.policy_case(), v1::FlowPolicy::kRecentTrajectory);
  EXPECT_EQ(policy.recent_trajectory().n(), 8);
  EXPECT_EQ(policy.recent_trajectory().max_tokens(), 0);
}

TEST(EffectivePolicy, Configured_KeptOverKindDefault) {
  v1::FlowPolicy configured;
  configured.mutable_ancestors()->set_transitive(true);
  v1::FlowPolicy policy = EffectivePolicy(configured, v1::FLOW_KIND_PLAN_AND_EXECUTE);
  ASSERT_EQ(policy.policy_case(), v1::FlowPolicy::kAncestors);
  EXPECT_TRUE(policy.ancestors().transitive());
}

TEST(EffectivePolicy, RecentTrajectoryZeroN_Eight) {
  v1::FlowPolicy configured;
  configured.mutable_recent_trajectory()->set_max_tokens(500);
  v1::FlowPolicy policy = EffectivePolicy(configured, v1::FLOW_KIND_BOARD);
  EXPECT_EQ(policy.recent_trajectory().n(), 8);
  EXPECT_EQ(policy.recent_trajectory().max_tokens(), 500);
}

TEST(EffectivePolicy, RecentTrajectoryExplicitN_Kept) {
  v1::FlowPolicy configured;
  configured.mutable_recent_trajectory()->set_n(3);
  EXPECT_EQ(EffectivePolicy(configured, v1::FLOW_KIND_BOARD).recent_trajectory().n(), 3);
}

TEST(EffectivePolicy, CompactZeroRecentN_Eight) {
  v1::FlowPolicy configured;
  configured.mutable_compact()->set_summarizer_agent("sum");
  v1::FlowPolicy policy = EffectivePolicy(configured, v1::FLOW_KIND_BOARD);
  EXPECT_EQ(policy.compact().recent_n(), 8);
  EXPECT_EQ(policy.compact().summarizer_agent(), "sum");
}

TEST(EffectivePolicy, CustomExternalZeroTimeout_TwoSeconds) {
  v1::FlowPolicy configured;
  configured.mutable_custom()->set_external("policy:7000");
  EXPECT_EQ(EffectivePolicy(configured, v1::FLOW_KIND_BOARD).custom().external_timeout_ms(), 2000);
  configured.mutable_custom()->set_external_timeout_ms(150);
  EXPECT_EQ(EffectivePolicy(configured, v1::FLOW_KIND_BOARD).custom().external_timeout_ms(), 150);
}

TEST(EffectivePolicy, CustomDeclarative_ZeroValuesLeftAlone) {
  v1::FlowPolicy configured;
  configured.mutable_custom()->set_errors(true);
  v1::FlowPolicy policy = EffectivePolicy(configured, v1::FLOW_KIND_BOARD);
  EXPECT_EQ(policy.custom().recent(), 0);
  EXPECT_EQ(policy.custom().external_timeout_ms(), 0);
  EXPECT_EQ(policy.custom().max_tokens(), 0);
}

}  // namespace
}  // namespace taskboard::policy
