// Composition across real processes (docs/flow-dsl.md 3 and 4.1): a saved
// flow as a plan's step executor (`stepExecutor: {flow: NAME}`), saved with
// SaveFlow, each plan step a child run of it with the step's goal as its arg
// `goal`, and what SubmitRun rejects; and a map of supervisors that is
// cancelled and resumed across the nesting. The agents are command agents
// written per test: a planner that prints a fixed plan (and accepts, as a
// reviewer), a step agent that prints its prompt, so every output says what
// the agent was asked, and a slow one that holds item `b` until released.

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::IsOk;
using ::testing::SizeIs;
using testing::StatusIs;
using ::testing::UnorderedElementsAre;

// The step flow: it declares `goal` (the step's goal) and `team`, which it
// gets from the parent run's args.
constexpr char kStepFlow[] = R"yaml(
name: do-step
args:
  goal: {required: true}
  team: {default: nobody}
phases:
  - id: do
    agent: stepper
    task: "{args.goal} (team {args.team})"
)yaml";

// A plan whose two steps (`design`, then `build`) are each run by do-step.
constexpr char kPlanFlow[] = R"(
name: ship
args:
  team: {default: platform}
planAndExecute:
  goal: Ship the widget API for {args.team}
  plannerAgent: planner
  stepExecutor: {flow: do-step}
)";

class CompositionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::filesystem::path agents = dir_.path() / "agents";
    std::filesystem::create_directory(agents);
    // Plans two steps; as a supervisor's reviewer, accepts both.
    WriteCommandAgent(agents, "planner", R"(case "$TASKBOARD_PROMPT" in
  *"Review each result"*)
    echo '[{"task_id": "design", "verdict": "accepted"}, {"task_id": "build", "verdict": "accepted"}]' ;;
  *) cat <<'EOF'
{"tasks": [{"id": "design", "goal": "Design the widget API"},
           {"id": "build", "goal": "Build the widget API", "deps": ["design"]}]}
EOF
esac
)");
    WriteCommandAgent(agents, "stepper", R"(printf 'did: %s\n' "$TASKBOARD_PROMPT"
)");
    // Logs "RUN TASK" per execution; holds tasks about item `b` until the
    // file `released` exists next to it.
    WriteCommandAgent(agents, "slow", R"(dir=$TASKBOARD_AGENT_DIR
echo "$TASKBOARD_RUN_ID $TASKBOARD_TASK_ID" >> "$dir/executions.log"
case "$TASKBOARD_PROMPT" in
  *"Do b"*) while [ ! -e "$dir/released" ]; do sleep 0.05; done ;;
esac
printf 'did: %s\n' "$TASKBOARD_PROMPT"
)");
    testing::ClusterOptions options;
    options.workers = 1;
    options.agents_dir = agents.string();
    cluster_ = std::make_unique<testing::Cluster>(options);
    ASSERT_THAT(cluster_->Start(), IsOk());
    agents_ = agents;
  }

  // A command agent `name` running the shell script `body`.
  static void WriteCommandAgent(const std::filesystem::path& dir, const std::string& name,
                                const std::string& body) {
    std::ofstream(dir / (name + ".sh")) << "#!/bin/sh\n" << body;
    std::filesystem::permissions(dir / (name + ".sh"), std::filesystem::perms::owner_all);
    std::ofstream(dir / (name + ".yaml"))
        << "name: " << name << "\ntype: command\ncommand: [\"./" << name << ".sh\"]\n";
  }

  absl::Status SaveFlow(const std::string& text) {
    v1::SaveFlowRequest request;
    request.mutable_source()->set_text(text);
    v1::SaveFlowResponse response;
    grpc::ClientContext context;
    grpc::Status status = cluster_->client().SaveFlow(&context, request, &response);
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
  }

  // How often `slow` ran in run `run_id`.
  int SlowExecutions(const std::string& run_id) const {
    std::ifstream log(agents_ / "executions.log");
    int count = 0;
    for (std::string line; std::getline(log, line);) count += line.rfind(run_id + " ", 0) == 0;
    return count;
  }

  testing::TempDir dir_;
  std::filesystem::path agents_;
  std::unique_ptr<testing::Cluster> cluster_;
};

TEST_F(CompositionTest, SavedFlowStepExecutor_EachStepRunsAsAChildRunWithItsGoal) {
  ASSERT_THAT(SaveFlow(kStepFlow), IsOk());
  absl::StatusOr<std::string> run_id = cluster_->Submit(kPlanFlow);
  ASSERT_THAT(run_id.status(), IsOk()) << cluster_->Logs();
  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id, 30'000);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  ASSERT_THAT(run->child_run_ids(), SizeIs(2));

  // Each step is a child run of do-step: the step's goal is its arg `goal`,
  // the parent's `team` its `team`, and its output the step's result.
  std::map<std::string, std::string> step_outputs;
  for (const v1::Task& step : run->tasks()) {
    if (step.role() != "step") continue;
    SCOPED_TRACE(step.task_id());
    ASSERT_FALSE(step.child_run_id().empty());
    absl::StatusOr<v1::Run> child = cluster_->GetRun(step.child_run_id());
    ASSERT_THAT(child.status(), IsOk());
    EXPECT_EQ(child->flow_name(), "do-step");
    EXPECT_EQ(child->kind(), v1::FLOW_KIND_TASKFLOW);
    EXPECT_EQ(child->status(), v1::RUN_STATUS_COMPLETED) << child->error();
    EXPECT_EQ(child->parent_run_id(), *run_id);
    EXPECT_EQ(child->root_run_id(), *run_id);
    EXPECT_EQ(child->args().fields().at("goal").string_value(), step.title());
    EXPECT_EQ(child->args().fields().at("team").string_value(), "platform");
    EXPECT_EQ(child->output(), absl::StrCat("did: ", step.title(), " (team platform)\n"));
    EXPECT_EQ(step.output(), child->output());
    step_outputs[step.task_id()] = step.output();
  }
  EXPECT_THAT(step_outputs,
              UnorderedElementsAre(
                  ::testing::Pair("design", "did: Design the widget API (team platform)\n"),
                  ::testing::Pair("build", "did: Build the widget API (team platform)\n")));
  // No synthesizer: the output is the plan with each step's result.
  EXPECT_THAT(run->output(), HasSubstr("did: Build the widget API (team platform)"));
}

TEST_F(CompositionTest, SavedFlowStepExecutor_UnknownFlow_FailsAtSubmitNamingTheField) {
  EXPECT_THAT(cluster_->Submit(kPlanFlow),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("planAndExecute.stepExecutor.flow"), HasSubstr("do-step"))));
  // The same check for a plan phase of a taskflow, at the phase's path.
  EXPECT_THAT(cluster_->Submit(R"(
name: tf
phases:
  - id: p
    type: plan
    agent: stepper
    task: Ship it
    plan: {plannerAgent: planner, stepExecutor: {flow: nope}}
)"),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("phases[0].plan.stepExecutor.flow"), HasSubstr("nope"))));
}

TEST_F(CompositionTest, SavedFlowStepExecutor_FlowWithoutGoalArg_FailsAtSubmitNamingTheField) {
  ASSERT_THAT(SaveFlow(R"(
name: do-step
phases:
  - {id: do, agent: stepper, task: do something}
)"),
              IsOk());
  EXPECT_THAT(cluster_->Submit(kPlanFlow),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("planAndExecute.stepExecutor.flow"),
                             HasSubstr("saved flow 'do-step' has no arg `goal`"))));
}

TEST_F(CompositionTest, SavedFlowStepExecutor_AFlowThatRunsItself_FailsAtSubmitNamingTheDepth) {
  // A saved plan whose steps run the saved plan itself would nest forever.
  ASSERT_THAT(SaveFlow(R"yaml(
name: loop
args: {goal: {required: true}}
kind: plan_and_execute
planAndExecute:
  goal: "{args.goal}"
  plannerAgent: stepper
  stepExecutor: {flow: loop}
)yaml"),
              IsOk());
  EXPECT_THAT(cluster_->Submit(R"yaml(
name: outer
kind: plan_and_execute
planAndExecute:
  goal: go
  plannerAgent: stepper
  stepExecutor: {flow: loop}
)yaml"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("stepExecutor.flow"), HasSubstr("nest more than 4 deep"),
                             HasSubstr("does 'loop' run itself?"))));
  // The scheduler keeps serving.
  EXPECT_THAT(SaveFlow(kStepFlow), IsOk());
}

TEST_F(CompositionTest, SavedFlowStepExecutor_RequiredArgThePlanLacks_FailsAtSubmit) {
  ASSERT_THAT(SaveFlow(R"yaml(
name: do-step
args:
  goal: {required: true}
  ticket: {required: true}
phases:
  - {id: do, agent: stepper, task: "{args.goal} for {args.ticket}"}
)yaml"),
              IsOk());
  EXPECT_THAT(
      cluster_->Submit(kPlanFlow),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("planAndExecute.stepExecutor.flow"),
                     HasSubstr("requires arg 'ticket', which this flow does not declare"))));
  // Declared by the plan, the arg reaches every step.
  absl::StatusOr<std::string> run_id = cluster_->Submit(R"(
name: ship
args:
  ticket: {default: T-1}
planAndExecute:
  goal: Ship the widget API
  plannerAgent: planner
  stepExecutor: {flow: do-step}
)");
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id, 30'000);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  EXPECT_THAT(run->output(), HasSubstr("did: Build the widget API for T-1"));
}

// A map of supervisors: item `a`'s child completes, item `b`'s is cancelled
// with the run mid-way; resume finishes `b` under its own id and keeps `a`.
TEST_F(CompositionTest, MapOfSupervisors_CancelAndResumeCrossTheNesting) {
  absl::StatusOr<std::string> run_id = cluster_->Submit(R"(
name: fan
phases:
  - id: each
    type: map
    over: [a, b]
    agent: slow
    task: "Do {item}"
    supervise: {plannerAgent: planner, reviewerAgent: planner}
)");
  ASSERT_THAT(run_id.status(), IsOk()) << cluster_->Logs();
  // Both children started; `a`'s completed, `b`'s workers are held.
  absl::StatusOr<v1::Run> run = cluster_->WaitUntil(
      *run_id, [](const v1::Run& run) { return run.child_run_ids_size() == 2; }, 30'000);
  ASSERT_THAT(run.status(), IsOk());
  std::map<std::string, std::string> child_of;  // item task id -> child run id
  for (const v1::Task& task : run->tasks()) child_of[task.task_id()] = task.child_run_id();
  ASSERT_THAT(cluster_->WaitForRun(child_of["each[0]"], 30'000).status(), IsOk());
  ASSERT_THAT(
      cluster_
          ->WaitUntil(
              child_of["each[1]"],
              [&](const v1::Run&) { return SlowExecutions(child_of["each[1]"]) == 2; }, 30'000)
          .status(),
      IsOk());

  v1::CancelRunRequest cancel;
  cancel.set_run_id(*run_id);
  v1::CancelRunResponse cancelled;
  grpc::ClientContext cancel_context;
  ASSERT_TRUE(cluster_->client().CancelRun(&cancel_context, cancel, &cancelled).ok());
  run = cluster_->WaitForRun(*run_id, 30'000);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_CANCELLED);
  absl::StatusOr<v1::Run> b = cluster_->WaitForRun(child_of["each[1]"], 30'000);
  ASSERT_THAT(b.status(), IsOk());
  EXPECT_EQ(b->status(), v1::RUN_STATUS_CANCELLED);
  absl::StatusOr<v1::Run> a = cluster_->GetRun(child_of["each[0]"]);
  ASSERT_THAT(a.status(), IsOk());
  EXPECT_EQ(a->status(), v1::RUN_STATUS_COMPLETED);

  std::ofstream(agents_ / "released") << "go\n";
  v1::ResumeRunRequest resume;
  resume.set_run_id(*run_id);
  v1::ResumeRunResponse resumed;
  grpc::ClientContext resume_context;
  ASSERT_TRUE(cluster_->client().ResumeRun(&resume_context, resume, &resumed).ok());
  run = cluster_->WaitForRun(*run_id, 30'000);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  // The same children: `b`'s resumed under its id and completed, `a`'s
  // work was not done again.
  for (const v1::Task& task : run->tasks()) {
    EXPECT_EQ(task.child_run_id(), child_of[task.task_id()]) << task.task_id();
  }
  b = cluster_->GetRun(child_of["each[1]"]);
  ASSERT_THAT(b.status(), IsOk());
  EXPECT_EQ(b->status(), v1::RUN_STATUS_COMPLETED) << b->error();
  EXPECT_EQ(SlowExecutions(child_of["each[0]"]), 2);
  EXPECT_EQ(SlowExecutions(child_of["each[1]"]), 4);  // its two cancelled tasks, again
  EXPECT_THAT(run->output(), AllOf(HasSubstr("did: "), HasSubstr("Do b")));
}

}  // namespace
}  // namespace taskboard
