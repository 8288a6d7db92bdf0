// What runs a flow's omitted agents (default_agent_choice.h): the first
// registered agent or --default-agent, decided at submit, refused at submit
// when no connected worker offers it.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/default_agent_choice.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kNoAgent[] = R"({"name": "f", "phases": [{"id": "a", "task": "hi"}]})";

EngineOptions WithDefaultAgent(std::string agent) {
  EngineOptions options = EngineHarness::DefaultOptions();
  options.default_agent = std::move(agent);
  return options;
}

TEST(SubmitDefaultAgent, NoWorker_SubmitFailsAtOnceSayingWhatToDo) {
  EngineHarness h;
  EXPECT_THAT(h.TrySubmit(kNoAgent),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("flow 'f' leaves the agent of phases[0].agent"),
                             HasSubstr("no --default-agent and no worker is connected"),
                             HasSubstr("--default-agent NAME"), HasSubstr("name `agent`"))));
}

TEST(SubmitDefaultAgent, FirstRegistered_EarliestWorkersFirstAgentSkippingNoop) {
  EngineHarness h;
  TestWorker first = h.Connect("w1", {"noop", "writer", "zeta"});
  h.Connect("w2", {"alpha"});
  const std::string run = h.Submit(kNoAgent);
  EXPECT_EQ(h.ReadRunView(run).spec().taskflow().phases(0).agent(), "writer")
      << "the stored spec names the agent that runs";
  EXPECT_EQ(h.OnlyAssignment(first).agent(), "writer");
}

TEST(SubmitDefaultAgent, FirstRegistered_OnlyNoopOffered_IsNoop) {
  EngineHarness h;
  h.Connect("w1", {"noop"});
  EXPECT_EQ(h.ReadRunView(h.Submit(kNoAgent)).spec().taskflow().phases(0).agent(), "noop");
}

TEST(SubmitDefaultAgent, FirstRegistered_AfterTheFirstWorkerLeaves_IsTheNextWorkers) {
  EngineHarness h;
  TestWorker first = h.Connect("w1", {"writer"});
  h.Connect("w2", {"coder"});
  h.Disconnect(first);
  EXPECT_EQ(h.ReadRunView(h.Submit(kNoAgent)).spec().taskflow().phases(0).agent(), "coder");
}

TEST(SubmitDefaultAgent, Configured_WinsOverTheFirstRegistered) {
  EngineHarness h(WithDefaultAgent("coder"));
  h.Connect("w1", {"writer"});
  TestWorker coder = h.Connect("w2", {"coder"});
  const std::string run = h.Submit(kNoAgent);
  EXPECT_EQ(h.ReadRunView(run).spec().taskflow().phases(0).agent(), "coder");
  EXPECT_EQ(h.OnlyAssignment(coder).agent(), "coder");
}

TEST(SubmitDefaultAgent, ConfiguredButNotOffered_SubmitFailsNamingTheAgent) {
  EngineHarness h(WithDefaultAgent("coder"));
  h.Connect("w1", {"writer"});
  EXPECT_THAT(h.TrySubmit(kNoAgent),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("default agent 'coder'"),
                             HasSubstr("no connected worker offers it (offered: writer)"),
                             HasSubstr("start a worker with agent 'coder'"))));
}

TEST(SubmitDefaultAgent, FlowNamingEveryAgent_SubmitsWithoutWorkers) {
  // Named agents keep the scheduling timeout: a worker may still bring them.
  EngineHarness h;
  h.Submit(R"({"name": "f", "phases": [{"id": "a", "task": "hi", "agent": "coder"}]})");
}

TEST(SubmitDefaultAgent, Supervisor_NamingOnlyItsWorker_PlannerAndReviewerDefault) {
  EngineHarness h(WithDefaultAgent("helper"));
  TestWorker worker = h.Connect("w1", {"helper", "researcher"});
  const std::string run =
      h.Submit(R"({"name": "s", "supervisor": {"goal": "g", "workerAgent": "researcher"}})");
  const v1::SupervisorSpec spec = h.ReadRunView(run).spec().supervisor();
  EXPECT_EQ(spec.planner_agent(), "helper");
  EXPECT_EQ(spec.reviewer_agent(), "helper");
  EXPECT_EQ(spec.worker_agent(), "researcher");
  EXPECT_EQ(h.OnlyAssignment(worker).agent(), "helper") << "the planner runs first";
}

TEST(SubmitDefaultAgent, ManyUnsetAgents_ErrorNamesAFewFields) {
  EngineHarness h;
  std::string phases;
  for (int i = 0; i < 6; ++i) {
    absl::StrAppend(&phases, i == 0 ? "" : ",", R"({"id": "p)", i, R"(", "task": "x"})");
  }
  EXPECT_THAT(h.TrySubmit(absl::StrCat(R"({"name": "f", "phases": [)", phases, "]}")),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("phases[0].agent, phases[1].agent, phases[2].agent, "
                                 "phases[3].agent and 2 more")));
}

}  // namespace
}  // namespace taskboard::engine
