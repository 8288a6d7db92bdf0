#include "worker/agents/noop_agent.h"

#include "gtest/gtest.h"
#include "tests/unit/worker/agents/fake_agent_context.h"

namespace taskboard::worker {
namespace {

using ::taskboard::worker::testing::FakeAgentContext;

TEST(NoopAgent, ReturnsItsPromptAtOnce) {
  NoopAgent agent("noop", "built in");
  v1::Assignment task;
  task.set_prompt("echo me");
  FakeAgentContext context;
  AgentOutcome outcome = agent.Run(task, context);
  EXPECT_TRUE(outcome.success);
  EXPECT_EQ(outcome.output, "echo me");
  EXPECT_EQ(outcome.execution.prompt(), "echo me");
  EXPECT_EQ(agent.info().type(), "noop");
}

TEST(NoopAgent, Cancelled_ReportsTheReason) {
  NoopAgent agent("noop", "");
  FakeAgentContext context;
  context.cancel().Cancel("lease revoked by the scheduler");
  AgentOutcome outcome = agent.Run(v1::Assignment(), context);
  EXPECT_FALSE(outcome.success);
  EXPECT_EQ(outcome.error, "cancelled: lease revoked by the scheduler");
  EXPECT_TRUE(outcome.execution.stopped());
}

}  // namespace
}  // namespace taskboard::worker
