#ifndef TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PLAN_EXECUTE_DRIVER_H_
#define TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PLAN_EXECUTE_DRIVER_H_

// The plan-and-execute driver (docs/semantics.md#plan-and-execute, seed 001):
//
//   planning ──planner completes with a valid plan──> active
//      │ invalid plan: the planner's attempt fails (retried within its
//      │ attempts, the parse error shown); attempts used up: run failed
//      v
//   active: steps run in dependency order, at most max_concurrency at once;
//           a failed step skips every pending step that depends on it
//      │ nothing left to run: iteration += 1
//      │   deterministic evaluator: done
//      │   llm evaluator: an `evaluator-N` task decides (failed for good:
//      │   the run fails, keeping the plan; a resume asks it again)
//      │     complete / continue: done
//      │     replan with inline tasks: they join the plan ──> active
//      │     replan: a `replanner-N` task returns tasks    ──> active
//      │   (at max_iterations, or without enableReplanning: done)
//      v
//   With `approvePlan`, each plan (and the steps each replan adds) first
//   waits in `approving` for a person (`approve-plan-N`, plan_approval.h):
//   approved (or edited) ──> active; rejected: the run ends blocked.
//
//   synthesizing (with a synthesizer) ──> completed
//
// Task ids: `planner`, `synthesizer`, `evaluator-N`, `replanner-N`,
// `approve-plan-N`, and
// each step's own id (a step named like those gets a `-step` suffix;
// replanned steps whose id exists get `-replan-N`). Everything the driver
// decides from is in the run's tasks (the planner's, evaluators' and
// replanners' stored outputs) plus its `pattern_phase`, so a restart or a
// recovered run re-reads it.
//
// With a supervisor as the step executor, each ready step is carried out by
// a child supervisor run instead of an agent (child_runs.h); its output is
// the child's.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/engine/drivers/pattern_driver.h"
#include "scheduler/flow/plan_output.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::engine {

class PlanExecuteDriver final : public PatternDriver {
 public:
  PlanExecuteDriver(const v1::FlowSpec& spec, const RunLimits& limits);

 private:
  // PatternDriver: the plan-and-execute decisions.
  std::string PlannerPrompt(const std::string& goal) const override;
  void OnPlan(RunState& run, std::vector<flow::PlannedTask> plan, int64_t now_ms) override;
  // Fails steps whose output says `success: false`, skips steps behind failed
  // ones and readies steps whose deps are done, up to max_concurrency.
  bool DrainWork(RunState& run, int64_t now_ms) override;
  // Nothing left to run: the evaluator's turn (or the end).
  void AfterWork(RunState& run, int64_t now_ms) override;
  const store::TaskRecord* Decider(const RunState& run, const std::string& phase) const override;
  void OnDecision(RunState& run, const store::TaskRecord& decider, int64_t now_ms) override;
  std::string Report(const RunState& run) const override;
  std::string SynthesizerPrompt(const RunState& run) const override;
  void Finish(RunState& run, int64_t now_ms) override;
  int Iteration(const RunState& run) const override;

  // A rejected plan approval waits again.
  void BeforeResume(RunState& run, int64_t now_ms) override;

  // `approvePlan`: `steps` (a first plan, or the tasks replan `replan` adds)
  // wait for a person (plan_approval.h) in the phase `approving`.
  void AskApproval(RunState& run, const std::vector<flow::PlannedTask>& steps, int replan,
                   int64_t now_ms);
  // Decided: the approved (or edited) steps join the plan; a rejection
  // blocks the run.
  void ApplyApproval(RunState& run, const store::TaskRecord& approval, int64_t now_ms);
  void CreateSteps(RunState& run, const std::vector<flow::PlannedTask>& plan, int64_t now_ms);
  void CheckStepOutcomes(RunState& run, int64_t now_ms);
  // Returns whether steps remain to run.
  bool DrainSteps(RunState& run, int64_t now_ms);
  void ApplyDecision(RunState& run, const store::TaskRecord& evaluator, int64_t now_ms);
  void ApplyReplan(RunState& run, const store::TaskRecord& replanner, int64_t now_ms);
  // Adds replanned tasks as steps (or asks a person about them first);
  // INVALID_ARGUMENT naming an unknown dep.
  absl::Status AddSteps(RunState& run, std::vector<flow::PlannedTask> tasks, int replan_number,
                        int64_t now_ms);
  // The evaluations so far (the iteration count).
  int Iterations(const RunState& run) const;

  std::vector<const store::TaskRecord*> Steps(const RunState& run) const;
  std::string PlanJson(const RunState& run, const std::string& status) const;
  store::TaskRecord NewTask(RunState& run, std::string id, std::string role, std::string agent,
                            std::string prompt, int64_t now_ms) const;
  void SetPhase(RunState& run, const std::string& phase, std::string detail) const;

  const v1::PlanExecuteSpec& plan_;
  int max_concurrency_ = 1;
  int max_iterations_ = 3;
};

// The driver of plan-and-execute runs (driver_factory.cc).
std::unique_ptr<Driver> MakePlanExecuteDriver(const v1::FlowSpec& spec, const RunLimits& limits);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PLAN_EXECUTE_DRIVER_H_
