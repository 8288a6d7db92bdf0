#ifndef TASKBOARD_SCHEDULER_ENGINE_PLAN_EXECUTE_DRIVER_H_
#define TASKBOARD_SCHEDULER_ENGINE_PLAN_EXECUTE_DRIVER_H_

// The plan-and-execute driver (SEMANTICS.md 5, seed 001):
//
//   planning ──planner completes with a valid plan──> active
//      │ invalid plan: the planner's attempt fails (retried within its
//      │ attempts, the parse error shown); attempts used up: run failed
//      v
//   active: steps run in dependency order, at most max_concurrency at once;
//           a failed step skips every pending step that depends on it
//      │ nothing left to run (the deterministic evaluator)
//      v
//   synthesizing (with a synthesizer) ──> completed
//
// Task ids: `planner`, `synthesizer`, and each step's own id (a step named
// like one of those two gets a `-step` suffix). The plan is the planner's
// stored output, so the driver keeps no state of its own beyond the run's
// tasks and its `pattern_phase`: a restart or a recovered run re-reads it.
//
// Not yet: the LLM evaluator, replanning, and a supervisor as the step
// executor; MakeDriver refuses those settings with UNIMPLEMENTED.

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/engine/driver.h"
#include "scheduler/flow/plan_output.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::engine {

class PlanExecuteDriver final : public Driver {
 public:
  explicit PlanExecuteDriver(const v1::FlowSpec& spec);

  void Start(RunState& run, int64_t now_ms) override;
  void Advance(RunState& run, int64_t now_ms) override;

  static constexpr char kPlannerId[] = "planner";
  static constexpr char kSynthesizerId[] = "synthesizer";

 private:
  // Reads the planner's output; nullopt (and the planner's attempt failed or
  // the run finished) when it is not a valid plan.
  std::optional<std::vector<flow::PlannedTask>> AcceptPlan(RunState& run, int64_t now_ms);
  void CreateSteps(RunState& run, const std::vector<flow::PlannedTask>& plan, int64_t now_ms);
  // A completed step whose output says `success: false` fails its attempt.
  void CheckStepOutcomes(RunState& run, int64_t now_ms);
  // Skips steps behind failed ones and readies steps whose deps are done,
  // up to max_concurrency in flight. Returns whether steps remain to run.
  bool DrainSteps(RunState& run, int64_t now_ms);
  void Synthesize(RunState& run, int64_t now_ms);
  void Finish(RunState& run, int64_t now_ms);

  std::vector<const store::TaskRecord*> Steps(const RunState& run) const;
  std::string PlanJson(const RunState& run, const std::string& status) const;
  store::TaskRecord NewTask(RunState& run, std::string id, std::string role, std::string agent,
                            std::string prompt, int64_t now_ms) const;
  void SetPhase(RunState& run, const std::string& phase, std::string detail) const;
  std::string Goal(const RunState& run) const;

  v1::FlowSpec spec_;
  const v1::PlanExecuteSpec& plan_;
  int max_concurrency_ = 1;
  int max_attempts_ = 1;
};

// UNIMPLEMENTED naming the setting when `spec` uses what PlanExecuteDriver
// does not run yet (LLM evaluator, replanning, a supervisor step executor).
absl::Status CheckPlanExecuteSupported(const v1::FlowSpec& spec);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_PLAN_EXECUTE_DRIVER_H_
