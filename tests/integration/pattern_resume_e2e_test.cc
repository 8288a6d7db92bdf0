// `taskboard resume` of plan-and-execute, supervisor and nested runs at every
// point they can stop (issue 15, decision 79), across real processes: a
// scheduler, a worker whose llm agents talk to tools/fake-llm over HTTP, and
// the real `taskboard` CLI. A task fails for good when the fake answers its
// one attempt (maxAttemptsPerTask 1) with a 400, which the llm agent does not
// retry; a cancel hits a task whose answer the fake holds back. The fake's
// request log counts executions: after the resume every piece of work has
// been asked for exactly once, except what did not complete, asked twice.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/child_process.h"
#include "common/files.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster.h"
#include "tests/testing/fake_llm.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IsOk;
using ::testing::Not;
using ::testing::SizeIs;

// What each task's prompt holds, and so how the fake tells them apart.
constexpr char kPlanner[] = "Plan the work";
constexpr char kGather[] = "Your step (gather)";
constexpr char kCompare[] = "Your step (compare)";
constexpr char kEvaluator[] = "Decide what happens next";
constexpr char kPlanSynthesizer[] = "The plan and its results";
const std::vector<std::string> kPlanTasks = {kPlanner, kGather, kCompare, kEvaluator,
                                             kPlanSynthesizer};

constexpr char kSupervisorPlanner[] = "Split the goal";
constexpr char kIntro[] = "Your task (intro)";
constexpr char kApi[] = "Your task (api)";
constexpr char kReview[] = "(round 1 of";
constexpr char kSecondReview[] = "(round 2 of";
constexpr char kSupervisorSynthesizer[] = "Write the final result from these accepted results";
const std::vector<std::string> kSupervisorTasks = {kSupervisorPlanner, kIntro, kApi, kReview,
                                                   kSupervisorSynthesizer};

// The fake's answers when nothing goes wrong (rules are tried in order; a
// test puts its failure before them).
constexpr char kPlanRules[] = R"yaml(
  - name: plan
    match: {last_user_contains: Plan the work}
    respond:
      content:
        tasks:
          - {id: gather, goal: Gather the facts about widgets}
          - {id: compare, goal: Compare the facts with the 1990s, deps: [gather]}
  - name: gather
    match: {last_user_contains: "Your step (gather)"}
    respond: {content: {summary: widgets are blue, success: true}}
  - name: compare
    match: {last_user_contains: "Your step (compare)"}
    respond: {content: {summary: blue since 1999, success: true}}
  - name: evaluate
    match: {last_user_contains: Decide what happens next}
    respond: {content: {decision: complete, reasoning: both steps are done}}
  - name: synthesize
    match: {last_user_contains: The plan and its results}
    respond: {content: "Brief: widgets have been blue since 1999."}
)yaml";
constexpr char kPlanOutput[] = "Brief: widgets have been blue since 1999.";

constexpr char kSupervisorRules[] = R"yaml(
  - name: plan
    match: {last_user_contains: Split the goal}
    respond:
      content:
        tasks: [{id: intro, goal: Write the introduction}, {id: api, goal: Write the API section}]
  - name: review-round-2
    match: {last_user_contains: "(round 2 of"}
    respond:
      content: {assessments: [{task_id: api, verdict: accepted, feedback: cleared, score: 0.9}]}
  - name: review
    match: {last_user_contains: Review each result}
    respond:
      content:
        assessments:
          - {task_id: intro, verdict: accepted, feedback: clear, score: 0.9}
          - {task_id: api, verdict: accepted, feedback: clear, score: 0.9}
  - name: synthesize
    match: {last_user_contains: Write the final result from these accepted results}
    respond: {content: "Docs: intro and API"}
  - name: intro
    match: {last_user_contains: "Your task (intro)"}
    respond: {content: intro text}
  - name: api
    match: {last_user_contains: "Your task (api)"}
    respond: {content: api text}
)yaml";
constexpr char kSupervisorOutput[] = "Docs: intro and API";

constexpr char kPlanFlow[] = R"yaml(
name: resume-plan
kind: plan_and_execute
maxAttemptsPerTask: 1
planAndExecute:
  goal: Find out what colour widgets are
  plannerAgent: planner
  executorAgent: worker
  evaluator: llm
  evaluatorAgent: reviewer
  synthesizerAgent: synthesizer
)yaml";

// One worker at a time, in plan order: `intro` has completed before `api`
// runs, so the counts are exact (a worker still in flight when a failing one
// ends the run is cancelled, and a resume would run it again).
constexpr char kSupervisorFlow[] = R"yaml(
name: resume-supervisor
kind: supervisor
maxAttemptsPerTask: 1
supervisor:
  goal: Document the widget tool
  plannerAgent: planner
  workerAgent: worker
  reviewerAgent: reviewer
  synthesizerAgent: synthesizer
  onSubTaskError: fail
  maxConcurrency: 1
)yaml";

// A pattern: its flow, the fake's answers when nothing goes wrong, the run's
// output then, and the markers of the tasks it runs.
struct Pattern {
  const char* flow;
  const char* rules;
  const char* output;
  std::vector<std::string> tasks;
};
const Pattern kPlan = {kPlanFlow, kPlanRules, kPlanOutput, kPlanTasks};
const Pattern kSupervisor = {kSupervisorFlow, kSupervisorRules, kSupervisorOutput,
                             kSupervisorTasks};

// A script of `rules` (YAML list items, each text a run of them).
std::string Script(const std::vector<std::string>& rules) {
  std::string script = "rules:\n";
  for (const std::string& rule : rules) absl::StrAppend(&script, rule);
  return script;
}

// The first prompt holding `marker` gets a 400: its task's attempt fails.
std::string FailOnce(const std::string& marker) {
  return absl::StrCat("  - name: fail-once\n    match: {last_user_contains: \"", marker,
                      "\", times: 1}\n    respond: {error: {status: 400}}\n");
}

// The first prompt holding `marker` is answered only after a minute, so its
// task is still in flight when the test cancels the run.
std::string StallOnce(const std::string& marker) {
  return absl::StrCat("  - name: stall-once\n    match: {last_user_contains: \"", marker,
                      "\", times: 1}\n    respond: {content: too late, delay_ms: 60000}\n");
}

// How many prompts held each marker.
using Counts = std::map<std::string, int>;

// `markers` each asked once, but those in `twice` asked twice.
Counts OnceExcept(const std::vector<std::string>& markers, const std::vector<std::string>& twice) {
  Counts counts;
  for (const std::string& marker : markers) counts[marker] = 1;
  for (const std::string& marker : twice) counts[marker] = 2;
  return counts;
}

std::vector<std::string> Plus(std::vector<std::string> markers, const std::string& more) {
  markers.push_back(more);
  return markers;
}

struct CliResult {
  int exit_code;
  std::string output;  // stdout and stderr together
};

class PatternResumeE2eTest : public ::testing::Test {
 protected:
  // fake-llm on `rules`, and a one-worker cluster whose llm agents (planner,
  // worker, reviewer, synthesizer) all ask it.
  void Start(const std::vector<std::string>& rules) {
    absl::StatusOr<std::unique_ptr<testing::FakeLlm>> llm =
        testing::FakeLlm::StartWithScript(dir_.path(), Script(rules));
    ASSERT_THAT(llm.status(), IsOk());
    llm_ = *std::move(llm);
    const std::filesystem::path agents = dir_.path() / "agents";
    std::filesystem::create_directory(agents);
    for (const std::string name : {"planner", "worker", "reviewer", "synthesizer"}) {
      std::ofstream(agents / (name + ".md")) << testing::LlmAgentFileText(
          name, llm_->base_url(), "", absl::StrCat("You are the ", name, "."));
    }
    testing::ClusterOptions options;
    options.workers = 1;
    options.agents_dir = agents.string();
    cluster_ = std::make_unique<testing::Cluster>(options);
    ASSERT_THAT(cluster_->Start(), IsOk());
  }

  // The `taskboard` binary with `args` against the cluster.
  CliResult Taskboard(std::vector<std::string> args) {
    args.insert(args.begin(), testing::BinaryPath("taskboard"));
    args.insert(args.end(), {"--scheduler", cluster_->address()});
    const std::string log = (dir_.path() / absl::StrCat("cli-", ++cli_calls_, ".log")).string();
    absl::StatusOr<std::unique_ptr<ChildProcess>> cli = ChildProcess::Spawn(args, log);
    if (!cli.ok()) return {-1, std::string(cli.status().message())};
    return {(*cli)->WaitFor(30'000).value_or(-1), ReadFileOrEmpty(log)};
  }

  std::string FlowFile(const std::string& flow) {
    const std::filesystem::path path = dir_.path() / "flow.yaml";
    std::ofstream(path) << flow;
    return path.string();
  }

  // `taskboard run FLOW` until the run stops short of completing with
  // `status` and `error`; the run id, from the resume hint it prints.
  std::string RunUntilStopped(const std::string& flow, v1::RunStatus status,
                              const std::string& error) {
    const CliResult run = Taskboard({"run", FlowFile(flow)});
    EXPECT_EQ(run.exit_code, 1) << run.output << cluster_->Logs();
    const std::string kHint = "resume it with `taskboard resume ";
    const size_t hint = run.output.find(kHint);
    if (hint == std::string::npos) {
      ADD_FAILURE() << "no resume hint in:\n" << run.output << cluster_->Logs();
      return "";
    }
    const size_t start = hint + kHint.size();
    const std::string run_id = run.output.substr(start, run.output.find('`', start) - start);
    const v1::Run stopped = GetRun(run_id);
    EXPECT_EQ(stopped.status(), status) << stopped.error();
    EXPECT_THAT(stopped.error(), HasSubstr(error));
    return run_id;
  }

  // `pattern` with `failure` ahead of its rules: `taskboard run` stops with
  // `status` and `error`, and `taskboard resume` completes the run. How many
  // times each of the pattern's tasks was asked.
  Counts FailThenResume(const Pattern& pattern, const std::string& failure, v1::RunStatus status,
                        const std::string& error) {
    Start({failure, pattern.rules});
    if (HasFatalFailure()) return {};
    const std::string run = RunUntilStopped(pattern.flow, status, error);
    ResumeToCompletion(run, pattern.output);
    return Asked(pattern.tasks);
  }

  // `pattern` with the answer to `task_id` (its prompt holds `marker`) held
  // back: `taskboard cancel` while it waits, then `taskboard resume`.
  Counts CancelThenResume(const Pattern& pattern, const std::string& task_id,
                          const std::string& marker) {
    Start({StallOnce(marker), pattern.rules});
    if (HasFatalFailure()) return {};
    const std::string run = Submit(pattern.flow);
    CancelWhileAsking(run, task_id, marker);
    if (HasFatalFailure()) return {};
    ResumeToCompletion(run, pattern.output);
    return Asked(pattern.tasks);
  }

  // `taskboard run FLOW --no-watch`: the run id (the one line of stdout,
  // which has no space, unlike the hint on stderr).
  std::string Submit(const std::string& flow) {
    const CliResult run = Taskboard({"run", FlowFile(flow), "--no-watch"});
    EXPECT_EQ(run.exit_code, 0) << run.output;
    for (absl::string_view line : absl::StrSplit(run.output, '\n')) {
      if (!line.empty() && line.find(' ') == absl::string_view::npos) return std::string(line);
    }
    ADD_FAILURE() << "no run id in:\n" << run.output;
    return "";
  }

  // Once task `task_id` runs and the model has its prompt (`marker`), so the
  // cancel finds it in flight, `taskboard cancel`s the run.
  void CancelWhileAsking(const std::string& run_id, const std::string& task_id,
                         const std::string& marker) {
    ASSERT_THAT(WaitForTask(run_id, task_id, v1::TASK_STATE_RUNNING), IsOk());
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (Asked(marker) == 0) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the model never got " << marker;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const CliResult cancel = Taskboard({"cancel", run_id});
    ASSERT_EQ(cancel.exit_code, 0) << cancel.output;
    EXPECT_THAT(cancel.output, HasSubstr("cancelled"));
    absl::StatusOr<v1::Run> run = cluster_->WaitForRun(run_id, 15'000);
    ASSERT_THAT(run.status(), IsOk());
    EXPECT_EQ(run->status(), v1::RUN_STATUS_CANCELLED);
  }

  absl::Status WaitForTask(const std::string& run_id, const std::string& task_id,
                           v1::TaskState state) {
    return cluster_
        ->WaitUntil(
            run_id,
            [&](const v1::Run& run) {
              for (const v1::Task& task : run.tasks()) {
                if (task.task_id() == task_id && task.state() == state) return true;
              }
              return false;
            },
            15'000)
        .status();
  }

  // `taskboard resume RUN`, which follows the run: it completes with
  // `output`. The run as it ended.
  v1::Run ResumeToCompletion(const std::string& run_id, const std::string& output) {
    const CliResult resume = Taskboard({"resume", run_id});
    EXPECT_EQ(resume.exit_code, 0) << resume.output << cluster_->Logs();
    EXPECT_THAT(resume.output, HasSubstr(absl::StrCat("resumed run ", run_id)));
    const v1::Run run = GetRun(run_id);
    EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error();
    EXPECT_EQ(run.output(), output);
    EXPECT_THAT(resume.output, HasSubstr(output));
    return run;
  }

  v1::Run GetRun(const std::string& run_id) {
    v1::GetRunRequest request;
    request.set_run_id(run_id);
    v1::GetRunResponse response;
    grpc::ClientContext context;
    const grpc::Status status = cluster_->client().GetRun(&context, request, &response);
    EXPECT_TRUE(status.ok()) << run_id << ": " << status.error_message();
    return response.run();
  }

  // The prompts (last user messages) the model got that hold `marker`.
  std::vector<std::string> Prompts(const std::string& marker) const {
    std::vector<std::string> prompts;
    for (const Json& request : llm_->Requests()) {
      std::string last_user;
      for (const Json& message : request["messages"]) {
        if (message.value("role", "") == "user") last_user = message.value("content", "");
      }
      if (last_user.find(marker) != std::string::npos) prompts.push_back(last_user);
    }
    return prompts;
  }
  int Asked(const std::string& marker) const { return static_cast<int>(Prompts(marker).size()); }
  Counts Asked(const std::vector<std::string>& markers) const {
    Counts counts;
    for (const std::string& marker : markers) counts[marker] = Asked(marker);
    return counts;
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::FakeLlm> llm_;
  std::unique_ptr<testing::Cluster> cluster_;
  int cli_calls_ = 0;
};

// Plan and execute ----------------------------------------------------------

TEST_F(PatternResumeE2eTest, Plan_PlannerFailed_ResumeAsksThePlannerAgain) {
  EXPECT_EQ(FailThenResume(kPlan, FailOnce(kPlanner), v1::RUN_STATUS_FAILED, "planner failed"),
            OnceExcept(kPlan.tasks, {kPlanner}));
}

TEST_F(PatternResumeE2eTest, Plan_StepFailed_ResumeRunsTheFailedAndSkippedSteps) {
  // `gather` fails and `compare`, which needs it, is skipped: a plan with no
  // completed step fails (docs/semantics.md#plan-and-execute), after the evaluator and the
  // synthesizer judged it. Both judge the new results again; the planner's
  // plan is kept and `compare` runs for the first time.
  EXPECT_EQ(FailThenResume(kPlan, FailOnce(kGather), v1::RUN_STATUS_FAILED, "no step completed"),
            OnceExcept(kPlan.tasks, {kGather, kEvaluator, kPlanSynthesizer}));
}

TEST_F(PatternResumeE2eTest, Plan_StepCancelled_ResumeRerunsTheCancelledStepOnly) {
  EXPECT_EQ(CancelThenResume(kPlan, "compare", kCompare), OnceExcept(kPlan.tasks, {kCompare}));
}

TEST_F(PatternResumeE2eTest, Plan_EvaluatorFailed_ResumeAsksTheEvaluatorAgain) {
  EXPECT_EQ(FailThenResume(kPlan, FailOnce(kEvaluator), v1::RUN_STATUS_FAILED, "evaluator failed"),
            OnceExcept(kPlan.tasks, {kEvaluator}));
}

TEST_F(PatternResumeE2eTest, Plan_SynthesizerFailed_ResumeAsksTheSynthesizerAgain) {
  EXPECT_EQ(FailThenResume(kPlan, FailOnce(kPlanSynthesizer), v1::RUN_STATUS_FAILED,
                           "synthesizer failed"),
            OnceExcept(kPlan.tasks, {kPlanSynthesizer}));
}

TEST_F(PatternResumeE2eTest, Plan_CancelledWhileEvaluating_ResumeKeepsEveryStep) {
  EXPECT_EQ(CancelThenResume(kPlan, "evaluator-1", kEvaluator),
            OnceExcept(kPlan.tasks, {kEvaluator}));
}

// Supervisor ------------------------------------------------------------------

TEST_F(PatternResumeE2eTest, Supervisor_PlannerFailed_ResumeAsksThePlannerAgain) {
  EXPECT_EQ(FailThenResume(kSupervisor, FailOnce(kSupervisorPlanner), v1::RUN_STATUS_FAILED,
                           "planner failed"),
            OnceExcept(kSupervisor.tasks, {kSupervisorPlanner}));
}

TEST_F(PatternResumeE2eTest, Supervisor_WorkerFailed_ResumeRerunsThatWorkerOnly) {
  EXPECT_EQ(FailThenResume(kSupervisor, FailOnce(kApi), v1::RUN_STATUS_FAILED,
                           "worker task 'api' failed"),
            OnceExcept(kSupervisor.tasks, {kApi}));
}

TEST_F(PatternResumeE2eTest, Supervisor_ReviewerFailed_ResumeAsksTheReviewerAgain) {
  EXPECT_EQ(
      FailThenResume(kSupervisor, FailOnce(kReview), v1::RUN_STATUS_FAILED, "reviewer failed"),
      OnceExcept(kSupervisor.tasks, {kReview}));
}

TEST_F(PatternResumeE2eTest,
       Supervisor_ReviewerEscalated_ResumeRerunsTheEscalatedTaskWithFeedback) {
  constexpr char kEscalateApi[] = R"yaml(
  - name: escalate-api
    match: {last_user_contains: "(round 1 of"}
    respond:
      content:
        assessments:
          - {task_id: intro, verdict: accepted, feedback: clear, score: 0.9}
          - {task_id: api, verdict: escalate, feedback: ask legal about the licence, score: 0.2}
)yaml";
  EXPECT_EQ(FailThenResume(kSupervisor, kEscalateApi, v1::RUN_STATUS_BLOCKED,
                           "the reviewer escalated api: ask legal about the licence"),
            OnceExcept(kSupervisor.tasks, {kApi}));
  // The escalated task ran again, told why; a second round reviewed it
  // alone; the accepted introduction was neither rewritten nor re-reviewed.
  std::vector<std::string> api = Prompts(kApi);
  ASSERT_THAT(api, SizeIs(2));
  EXPECT_THAT(api[1], HasSubstr("ask legal about the licence"));
  EXPECT_THAT(Prompts(kSecondReview), ElementsAre(Not(HasSubstr("intro text"))));
}

TEST_F(PatternResumeE2eTest, Supervisor_SynthesizerFailed_ResumeAsksTheSynthesizerAgain) {
  EXPECT_EQ(FailThenResume(kSupervisor, FailOnce(kSupervisorSynthesizer), v1::RUN_STATUS_FAILED,
                           "synthesizer failed"),
            OnceExcept(kSupervisor.tasks, {kSupervisorSynthesizer}));
}

TEST_F(PatternResumeE2eTest, Supervisor_CancelledWhileAWorkerRuns_ResumeKeepsTheFinishedWorker) {
  // One worker at a time: `intro` is done when `api` is cancelled.
  EXPECT_EQ(CancelThenResume(kSupervisor, "api", kApi), OnceExcept(kSupervisor.tasks, {kApi}));
}

// Nested ----------------------------------------------------------------------

// A plan whose one step is run by a child supervisor run.
constexpr char kOuterPlanRule[] = R"yaml(
  - name: outer-plan
    match: {last_user_contains: Plan the work}
    respond:
      content: {tasks: [{id: docs, goal: Document the widget tool}]}
)yaml";
constexpr char kNestedFlow[] = R"yaml(
name: resume-nested
kind: plan_and_execute
maxAttemptsPerTask: 1
planAndExecute:
  goal: Ship the widget tool
  plannerAgent: planner
  stepExecutor:
    plannerAgent: planner
    workerAgent: worker
    reviewerAgent: reviewer
    synthesizerAgent: synthesizer
    onSubTaskError: fail
    maxConcurrency: 1
)yaml";

TEST_F(PatternResumeE2eTest, NestedSupervisorStep_WorkerFailed_ResumeResumesTheSameChildRun) {
  Start({FailOnce(kApi), kOuterPlanRule, kSupervisorRules});
  const std::string run = RunUntilStopped(kNestedFlow, v1::RUN_STATUS_FAILED, "no step completed");
  const v1::Run failed = GetRun(run);
  ASSERT_THAT(failed.child_run_ids(), SizeIs(1));
  const std::string child = failed.child_run_ids(0);
  EXPECT_EQ(GetRun(child).status(), v1::RUN_STATUS_FAILED);

  const CliResult resume = Taskboard({"resume", run});
  EXPECT_EQ(resume.exit_code, 0) << resume.output << cluster_->Logs();
  const v1::Run resumed = GetRun(run);
  ASSERT_EQ(resumed.status(), v1::RUN_STATUS_COMPLETED) << resumed.error();
  // Without a synthesizer the output is the plan, with the child's result.
  absl::StatusOr<Json> plan = ParseJson(resumed.output());
  ASSERT_THAT(plan.status(), IsOk()) << resumed.output();
  EXPECT_EQ((*plan)["completed_steps"], 1);
  EXPECT_THAT(resumed.output(), HasSubstr(kSupervisorOutput));

  // The same child run, completed, and the only one.
  EXPECT_THAT(resumed.child_run_ids(), ElementsAre(child));
  EXPECT_EQ(GetRun(child).status(), v1::RUN_STATUS_COMPLETED);
  v1::ListRunsRequest list;
  list.set_parent_run_id(run);
  v1::ListRunsResponse listed;
  grpc::ClientContext context;
  ASSERT_TRUE(cluster_->client().ListRuns(&context, list, &listed).ok());
  ASSERT_THAT(listed.runs(), SizeIs(1));
  EXPECT_EQ(listed.runs(0).run_id(), child);

  // The outer planner once, and inside the child only the failed worker twice.
  const std::vector<std::string> tasks = Plus(kSupervisorTasks, kPlanner);
  EXPECT_EQ(Asked(tasks), OnceExcept(tasks, {kApi}));
}

// A completed run ---------------------------------------------------------------

TEST_F(PatternResumeE2eTest, CompletedRun_ResumeSaysSoAndAsksNothing) {
  Start({kSupervisorRules});
  const std::string run = Submit(kSupervisorFlow);
  absl::StatusOr<v1::Run> done = cluster_->WaitForRun(run, 15'000);
  ASSERT_THAT(done.status(), IsOk());
  ASSERT_EQ(done->status(), v1::RUN_STATUS_COMPLETED) << done->error();
  const size_t requests = llm_->Requests().size();

  const CliResult resume = Taskboard({"resume", run});
  EXPECT_EQ(resume.exit_code, 0);
  EXPECT_THAT(resume.output,
              HasSubstr(absl::StrCat("run ", run, " already completed; nothing to resume")));
  EXPECT_EQ(GetRun(run).status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(GetRun(run).output(), kSupervisorOutput);
  EXPECT_EQ(llm_->Requests().size(), requests);
}

}  // namespace
}  // namespace taskboard
