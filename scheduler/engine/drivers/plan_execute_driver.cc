#include "scheduler/engine/drivers/plan_execute_driver.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "scheduler/engine/drivers/pattern_resume.h"
#include "scheduler/engine/drivers/pattern_tasks.h"
#include "scheduler/engine/drivers/plan_approval.h"
#include "scheduler/engine/drivers/plan_steps.h"
#include "scheduler/engine/state/approval_task.h"
#include "scheduler/engine/state/child_runs.h"
#include "scheduler/engine/state/run_finish.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/state/task_states.h"

namespace taskboard::engine {
namespace {

using pattern_phase::kActive;
using pattern_phase::kApproving;
using pattern_phase::kCompleted;
using pattern_phase::kEvaluating;
using pattern_phase::kPlanning;
using pattern_phase::kReplanning;
using pattern_phase::kSynthesizing;

// The plan's status vocabulary (docs/semantics.md#plan-and-execute).
const char* StepStatus(v1::TaskState state) {
  switch (state) {
    case v1::TASK_STATE_PENDING:
      return "pending";
    case v1::TASK_STATE_COMPLETED:
      return "completed";
    case v1::TASK_STATE_FAILED:
      return "failed";
    case v1::TASK_STATE_SKIPPED:
    case v1::TASK_STATE_CANCELLED:
      return "skipped";
    default:
      return "in-progress";
  }
}

std::string EvaluatorId(int iteration) { return absl::StrCat("evaluator-", iteration); }
std::string ReplannerId(int iteration) { return absl::StrCat("replanner-", iteration); }

}  // namespace

PlanExecuteDriver::PlanExecuteDriver(const v1::FlowSpec& spec, const RunLimits& limits)
    : PatternDriver(spec, limits,
                    {spec.plan_and_execute().goal(), spec.plan_and_execute().planner_agent(),
                     spec.plan_and_execute().synthesizer_agent(), "step"}),
      plan_(spec_.plan_and_execute()) {
  max_concurrency_ = plan_.max_concurrency() > 0 ? plan_.max_concurrency() : 1;
  // An explicit value is checked at intake (--max-iterations); the default
  // stays within the cap too.
  max_iterations_ = plan_.max_iterations() > 0 ? plan_.max_iterations()
                                               : std::min(3, std::max(1, limits.max_iterations));
}

void PlanExecuteDriver::SetPhase(RunState& run, const std::string& phase,
                                 std::string detail) const {
  SetPatternPhase(run, phase, Iteration(run), std::move(detail));
}

store::TaskRecord PlanExecuteDriver::NewTask(RunState& run, std::string id, std::string role,
                                             std::string agent, std::string prompt,
                                             int64_t now_ms) const {
  return PatternDriver::NewTask(run, std::move(id), std::move(role), std::move(agent),
                                std::move(prompt), max_attempts_, now_ms);
}

int PlanExecuteDriver::Iteration(const RunState& run) const { return std::max(1, Iterations(run)); }

std::string PlanExecuteDriver::PlannerPrompt(const std::string& goal) const {
  return absl::StrCat(
      "Goal: ", goal,
      "\n\nPlan the work: break the goal into tasks that together achieve it, each one an agent "
      "can do on its own. Answer with JSON {\"tasks\": [{\"id\", \"goal\", \"deps\": [ids of tasks "
      "that must finish first], \"priority\"}]}.");
}

void PlanExecuteDriver::OnPlan(RunState& run, std::vector<flow::PlannedTask> plan, int64_t now_ms) {
  RenameReservedSteps(plan);
  if (plan_.has_plan_approval()) return AskApproval(run, plan, 0, now_ms);
  CreateSteps(run, plan, now_ms);
  SetPhase(run, kActive, absl::StrCat(plan.size(), " steps"));
}

void PlanExecuteDriver::AskApproval(RunState& run, const std::vector<flow::PlannedTask>& steps,
                                    int replan, int64_t now_ms) {
  PlanApprovalRequest request;
  request.spec = &plan_.plan_approval();
  request.planning = Iterations(run) + 1;
  request.replan = replan;
  request.goal = Goal(run);
  request.options = {spec_.timeout_seconds(), 1};
  const std::string id = AskPlanApproval(run, request, steps, now_ms);
  SetPhase(run, kApproving, absl::StrCat(id, ": ", steps.size(), " steps wait for a person"));
}

void PlanExecuteDriver::ApplyApproval(RunState& run, const store::TaskRecord& approval,
                                      int64_t now_ms) {
  const std::string id = approval.task().task_id();
  if (IsRejected(approval)) {
    // Like a blocking gate: the run stops with the person's reason, keeping
    // what it has; a resume asks again.
    const std::string reason = RejectionReason(approval);
    store::RunRecord& record = run.MutableRecord();
    record.set_blocked_by(id);
    record.set_blocked_reason(reason);
    return FinishRun(
        run, v1::RUN_STATUS_BLOCKED, PlanJson(run, "blocked"),
        absl::StrCat("plan approval '", id, "' ", reason, " (taskboard resume asks again)"),
        now_ms);
  }
  absl::StatusOr<std::vector<flow::PlannedTask>> steps = ApprovedPlan(run, approval, limits_);
  if (!steps.ok()) {
    // Checked when it was decided; only a changed scheduler limit gets here.
    return FinishRun(
        run, v1::RUN_STATUS_FAILED, PlanJson(run, "failed"),
        absl::StrCat("the plan approved in '", id, "' cannot run: ", steps.status().message()),
        now_ms);
  }
  CreateSteps(run, *steps, now_ms);
  const bool edited = !approval.task().approval().decision().edited_plan().empty();
  SetPhase(
      run, kActive,
      absl::StrCat(steps->size(), edited ? " steps (edited plan approved)" : " steps approved"));
}

void PlanExecuteDriver::BeforeResume(RunState& run, int64_t now_ms) {
  // A rejected plan is asked about again rather than rejected again.
  if (run.record().pattern_phase() != kApproving) return;
  const store::TaskRecord* approval = Decider(run, kApproving);
  if (approval != nullptr && approval->task().approval().has_decision() && IsRejected(*approval)) {
    AskAgain(run.MutableTask(approval->task().task_id()), now_ms);
  }
}

bool PlanExecuteDriver::DrainWork(RunState& run, int64_t now_ms) {
  CheckStepOutcomes(run, now_ms);
  return DrainSteps(run, now_ms);
}

const store::TaskRecord* PlanExecuteDriver::Decider(const RunState& run,
                                                    const std::string& phase) const {
  if (phase == kEvaluating) return run.FindTask(EvaluatorId(Iterations(run)));
  if (phase == kReplanning) return run.FindTask(ReplannerId(Iterations(run)));
  if (phase == kApproving) return run.FindTask(PlanApprovalId(Iterations(run) + 1));
  return nullptr;
}

void PlanExecuteDriver::OnDecision(RunState& run, const store::TaskRecord& decider,
                                   int64_t now_ms) {
  if (decider.task().role() == "evaluator") return ApplyDecision(run, decider, now_ms);
  if (IsApprovalTask(decider)) return ApplyApproval(run, decider, now_ms);
  ApplyReplan(run, decider, now_ms);
}

std::string PlanExecuteDriver::Report(const RunState& run) const { return PlanJson(run, "failed"); }

std::string PlanExecuteDriver::SynthesizerPrompt(const RunState& run) const {
  return absl::StrCat(plan_.synthesize_instructions().empty()
                          ? "Write the final result of this plan from its steps' results."
                          : plan_.synthesize_instructions(),
                      "\n\nThe plan and its results:\n", PlanJson(run, "synthesizing"));
}

void PlanExecuteDriver::CreateSteps(RunState& run, const std::vector<flow::PlannedTask>& plan,
                                    int64_t now_ms) {
  for (const flow::PlannedTask& step : plan) {
    store::TaskRecord task = NewTask(run, step.id, "step", plan_.executor_agent(), "", now_ms);
    task.mutable_task()->set_title(step.goal);
    for (const std::string& dep : step.deps) task.mutable_task()->add_deps(dep);
    task.set_priority(step.priority);
    task.mutable_assignment()->set_output_schema_json(std::string(flow::StepOutputSchema()));
    run.PutTask(std::move(task));
  }
}

std::vector<const store::TaskRecord*> PlanExecuteDriver::Steps(const RunState& run) const {
  std::vector<const store::TaskRecord*> steps;
  for (const auto& [id, task] : run.tasks()) {
    if (task.task().role() == "step") steps.push_back(&task);
  }
  // Plan order: the order they were created in.
  std::sort(steps.begin(), steps.end(), [](const store::TaskRecord* a, const store::TaskRecord* b) {
    return a->order() < b->order();
  });
  return steps;
}

void PlanExecuteDriver::CheckStepOutcomes(RunState& run, int64_t now_ms) {
  const RunState::TaskIds changed = run.changed_tasks();
  for (const std::string& id : changed) {
    const store::TaskRecord* task = run.FindTask(id);
    if (task == nullptr || task->task().role() != "step" ||
        task->task().state() != v1::TASK_STATE_COMPLETED) {
      continue;
    }
    flow::StepOutcome outcome = flow::ParseStepOutput(task->task().output());
    if (outcome.success) continue;
    std::string reason = outcome.reason.empty()
                             ? "the step reported success: false without a reason"
                             : std::move(outcome.reason);
    // A child run is not re-run as a whole (child_runs.h).
    if (task->has_child_spec()) {
      FailTask(run.MutableTask(id), std::move(reason), now_ms);
    } else {
      FailAndMaybeRetry(run.MutableTask(id), std::move(reason), now_ms);
    }
  }
}

bool PlanExecuteDriver::DrainSteps(RunState& run, int64_t now_ms) {
  const Json no_args = Json::object();
  bool changed = true;
  while (changed) {
    changed = false;
    std::vector<const store::TaskRecord*> steps = Steps(run);
    int in_flight = 0;
    for (const store::TaskRecord* step : steps) in_flight += IsInFlight(step->task().state());
    for (const store::TaskRecord* step : steps) {
      if (step->task().state() != v1::TASK_STATE_PENDING) continue;
      std::string skip_reason;
      bool deps_done = true;
      for (const std::string& dep : step->task().deps()) {
        const store::TaskRecord* upstream = run.FindTask(dep);
        v1::TaskState state =
            upstream == nullptr ? v1::TASK_STATE_SKIPPED : upstream->task().state();
        if (state == v1::TASK_STATE_FAILED) {
          skip_reason = absl::StrCat("dep ", dep, " failed");
        } else if (state == v1::TASK_STATE_SKIPPED || state == v1::TASK_STATE_CANCELLED) {
          skip_reason = absl::StrCat("dep ", dep, " skipped");
        }
        if (!skip_reason.empty()) break;
        deps_done = deps_done && state == v1::TASK_STATE_COMPLETED;
      }
      const std::string id = step->task().task_id();
      if (!skip_reason.empty()) {
        v1::Task& task = *run.MutableTask(id).mutable_task();
        task.set_state(v1::TASK_STATE_SKIPPED);
        task.set_skip_reason(std::move(skip_reason));
        *task.mutable_finished_at() = ToTimestamp(now_ms);
        changed = true;
        continue;
      }
      if (!deps_done || in_flight >= max_concurrency_) continue;
      // Ready: tell the step what its dependencies produced.
      store::TaskRecord& task = run.MutableTask(id);
      v1::Assignment& assignment = *task.mutable_assignment();
      Json dependency_results = Json::object();
      std::string dep_lines;
      for (const std::string& dep : task.task().deps()) {
        // Keyed by the step it came from; a JSON result stays JSON.
        Json value = flow::StepResultJson(run.FindTask(dep)->task().output());
        const std::string summary = value.is_string() ? value.get<std::string>() : DumpJson(value);
        dependency_results[dep] = std::move(value);
        v1::DependencyResult& result = *assignment.add_dependency_results();
        result.set_id(dep);
        result.set_output(summary);
        result.set_success(true);
        absl::StrAppend(&dep_lines, "\n- ", dep, ": ", summary);
      }
      assignment.set_input_json(DumpJson(Json{{"step_id", id},
                                              {"goal", task.task().title()},
                                              {"dependency_results", dependency_results}}));
      const std::string instructions = plan_.execution_instructions().empty()
                                           ? ""
                                           : absl::StrCat(plan_.execution_instructions(), "\n\n");
      const std::string builds_on =
          dep_lines.empty() ? ""
                            : absl::StrCat("\n\nResults of the steps it builds on:", dep_lines);
      if (plan_.has_step_executor()) {
        // The nested supervisor's goal is the step, with what its planner
        // needs to know of the plan around it.
        AwaitChildRun(
            task,
            NestedSupervisorFlow(spec_, id,
                                 absl::StrCat(task.task().title(), "\n\nThis is step ", id,
                                              " of a plan for: ", Goal(run), builds_on,
                                              instructions.empty() ? "" : "\n\n", instructions)),
            now_ms);
      } else if (!plan_.step_flow().empty()) {
        // A saved flow does the step; it gets the goal as its arg `goal`.
        AwaitChildRun(task, SavedStepFlow(spec_, id), now_ms);
      } else {
        assignment.set_prompt(absl::StrCat(
            instructions, "Overall goal: ", Goal(run), "\n\nYour step (", id,
            "): ", task.task().title(), builds_on,
            "\n\nAnswer with JSON {\"summary\", \"success\", \"reason\", \"sources\": "
            "[{\"title\", \"url\"}]}; success: false with the reason if you could not do it."));
        MarkReady(task, now_ms);
      }
      ++in_flight;
      changed = true;
    }
  }
  for (const store::TaskRecord* step : Steps(run)) {
    if (!IsTerminal(step->task().state())) return true;
  }
  return false;
}

int PlanExecuteDriver::Iterations(const RunState& run) const {
  int iterations = 0;
  while (run.FindTask(EvaluatorId(iterations + 1)) != nullptr) ++iterations;
  return iterations;
}

void PlanExecuteDriver::AfterWork(RunState& run, int64_t now_ms) {
  if (plan_.evaluator() != v1::EVALUATOR_KIND_LLM) return Conclude(run, now_ms);
  const int iteration = Iterations(run) + 1;
  const std::string id = EvaluatorId(iteration);
  store::TaskRecord evaluator = NewTask(
      run, id, "evaluator", plan_.evaluator_agent(),
      absl::StrCat("Goal: ", Goal(run), "\n\nThe plan after iteration ", iteration, " of ",
                   max_iterations_, ":\n", PlanJson(run, "evaluating"),
                   "\n\nDecide what happens next: \"complete\" if the goal is met or cannot be "
                   "improved, \"continue\" to keep going as planned, or \"replan\" to add tasks "
                   "(give them in `tasks`, or leave it out and a replanner writes them). Answer "
                   "with JSON {\"decision\", \"reasoning\", \"tasks\"}."),
      now_ms);
  evaluator.mutable_task()->set_title(absl::StrCat("evaluate iteration ", iteration));
  evaluator.mutable_assignment()->set_output_schema_json(
      std::string(flow::EvaluatorOutputSchema()));
  MarkReady(evaluator, now_ms);
  run.PutTask(std::move(evaluator));
  run.MutableRecord().set_pattern_phase(kEvaluating);
}

void PlanExecuteDriver::ApplyDecision(RunState& run, const store::TaskRecord& evaluator,
                                      int64_t now_ms) {
  const std::string id = evaluator.task().task_id();
  absl::StatusOr<flow::EvaluatorDecision> decision =
      flow::ParseEvaluatorDecision(evaluator.task().output());
  if (!decision.ok()) {
    if (FailAndMaybeRetry(run.MutableTask(id),
                          absl::StrCat("the decision is invalid: ", decision.status().message()),
                          now_ms)) {
      FailPatternRun(run, *run.FindTask(id), Report(run), now_ms);
    }
    return;
  }
  const int iteration = Iterations(run);
  const bool replan = decision->decision == flow::EvaluatorDecisionKind::kReplan &&
                      plan_.enable_replanning() && iteration < max_iterations_;
  if (!replan) return Conclude(run, now_ms);
  if (decision->tasks.has_value()) {
    if (absl::Status added = AddSteps(run, *decision->tasks, iteration, now_ms); !added.ok()) {
      if (FailAndMaybeRetry(run.MutableTask(id), std::string(added.message()), now_ms)) {
        FailPatternRun(run, *run.FindTask(id), Report(run), now_ms);
      }
      return;
    }
    if (!plan_.has_plan_approval()) {
      SetPhase(run, kActive,
               absl::StrCat(decision->tasks->size(), " steps added by the evaluator"));
    }
    return;
  }
  const std::string agent =
      plan_.replanner_agent().empty() ? plan_.planner_agent() : plan_.replanner_agent();
  store::TaskRecord replanner = NewTask(
      run, ReplannerId(iteration), "replanner", agent,
      absl::StrCat("Goal: ", Goal(run), "\n\nThe plan so far:\n", PlanJson(run, "replanning"),
                   "\n\nWhy it needs more work: ", decision->reasoning,
                   "\n\nAdd the tasks that are missing (deps may name tasks already in the "
                   "plan). Answer with JSON {\"tasks\": [{\"id\", \"goal\", \"deps\", "
                   "\"priority\"}]}."),
      now_ms);
  replanner.mutable_task()->set_title(absl::StrCat("replan after iteration ", iteration));
  replanner.mutable_assignment()->set_output_schema_json(std::string(flow::PlanOutputSchema()));
  MarkReady(replanner, now_ms);
  run.PutTask(std::move(replanner));
  SetPhase(run, kReplanning, decision->reasoning);
}

void PlanExecuteDriver::ApplyReplan(RunState& run, const store::TaskRecord& replanner,
                                    int64_t now_ms) {
  const std::string id = replanner.task().task_id();
  absl::StatusOr<std::vector<flow::PlannedTask>> tasks =
      flow::ParseReplan(replanner.task().output());
  absl::Status added =
      tasks.ok() ? AddSteps(run, *std::move(tasks), Iterations(run), now_ms) : tasks.status();
  if (!added.ok()) {
    if (FailAndMaybeRetry(run.MutableTask(id),
                          absl::StrCat("the replan is invalid: ", added.message()), now_ms)) {
      FailPatternRun(run, *run.FindTask(id), Report(run), now_ms);
    }
    return;
  }
  if (!plan_.has_plan_approval()) SetPhase(run, kActive, "replanned");
}

absl::Status PlanExecuteDriver::AddSteps(RunState& run, std::vector<flow::PlannedTask> tasks,
                                         int replan_number, int64_t now_ms) {
  absl::StatusOr<std::vector<flow::PlannedTask>> steps =
      PrepareAddedSteps(run, std::move(tasks), replan_number, limits_);
  if (!steps.ok()) return steps.status();
  if (plan_.has_plan_approval()) {
    AskApproval(run, *steps, replan_number, now_ms);
  } else {
    CreateSteps(run, *steps, now_ms);
  }
  return absl::OkStatus();
}

std::string PlanExecuteDriver::PlanJson(const RunState& run, const std::string& status) const {
  Json tasks = Json::array();
  int completed = 0;
  std::vector<const store::TaskRecord*> steps = Steps(run);
  for (const store::TaskRecord* step : steps) {
    const v1::Task& task = step->task();
    Json entry = {
        {"id", task.task_id()}, {"goal", task.title()}, {"status", StepStatus(task.state())}};
    if (task.state() == v1::TASK_STATE_COMPLETED) {
      ++completed;
      entry["result"] = flow::StepResultJson(task.output());
    } else if (!task.error().empty()) {
      entry["error"] = task.error();
    } else if (!task.skip_reason().empty()) {
      entry["error"] = task.skip_reason();
    }
    tasks.push_back(std::move(entry));
  }
  return DumpJson(Json{{"goal", Goal(run)},
                       {"status", status},
                       {"tasks", std::move(tasks)},
                       {"completed_steps", completed},
                       {"total_steps", steps.size()}});
}

void PlanExecuteDriver::Finish(RunState& run, int64_t now_ms) {
  std::vector<const store::TaskRecord*> steps = Steps(run);
  int completed = 0;
  int skipped = 0;
  for (const store::TaskRecord* step : steps) {
    completed += step->task().state() == v1::TASK_STATE_COMPLETED;
    skipped += step->task().state() == v1::TASK_STATE_SKIPPED;
  }
  // No tasks: completed; all skipped: failed; else completed iff any step
  // completed (docs/semantics.md#plan-and-execute).
  const bool ok = steps.empty() || (skipped < static_cast<int>(steps.size()) && completed > 0);
  const std::string status = ok ? "completed" : "failed";
  std::string output = SynthesizedOutput(run);
  if (output.empty()) output = PlanJson(run, status);
  SetPhase(run, kCompleted, absl::StrCat(completed, " of ", steps.size(), " steps completed"));
  FinishRun(run, ok ? v1::RUN_STATUS_COMPLETED : v1::RUN_STATUS_FAILED, std::move(output),
            ok ? ""
               : (skipped == static_cast<int>(steps.size()) ? "every step was skipped"
                                                            : "no step completed"),
            now_ms);
}

std::unique_ptr<Driver> MakePlanExecuteDriver(const v1::FlowSpec& spec, const RunLimits& limits) {
  return std::make_unique<PlanExecuteDriver>(spec, limits);
}

}  // namespace taskboard::engine
