#ifndef TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PATTERN_DRIVER_H_
#define TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PATTERN_DRIVER_H_

// The shape every pattern run has, driven once here so that a pattern is one
// file of decisions (plan_execute_driver.cc, supervisor_driver.cc):
//
//   planning ──the `planner` task's plan──> OnPlan ──> active
//   active: DrainWork readies work tasks (steps, workers) until none is left
//      │ AfterWork: ask a decider task (an evaluator, a reviewer), or Conclude
//      v
//   a decision phase: Decider(phase) is the task the run waits on
//      │ completed: OnDecision (more work ──> active, another decider, or
//      │ Conclude); failed for good: the run fails keeping Report()
//      v
//   Conclude: `synthesizer` (when the flow has one and ReadyToSynthesize)
//      ──> Finish (the pattern's outcome and output)
//
// Resume (pattern_resume.h), the planner, the synthesizer and the failure of
// the driver's own tasks are the same for every pattern and live here. Child
// runs need nothing from a pattern: a work task it hands to AwaitChildRun
// (child_runs.h) is started, resumed and settled by the engine.

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/engine/drivers/driver.h"
#include "scheduler/engine/drivers/pattern_resume.h"
#include "scheduler/engine/drivers/pattern_tasks.h"
#include "scheduler/flow/plan_output.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::engine {

class PatternDriver : public Driver {
 public:
  void Start(RunState& run, int64_t now_ms) final;
  void Advance(RunState& run, int64_t now_ms) final;
  void Resume(RunState& run, int64_t now_ms) final;

  static constexpr char kPlannerId[] = "planner";
  static constexpr char kSynthesizerId[] = "synthesizer";

 protected:
  struct Roles {
    std::string goal_template;
    std::string planner_agent;
    std::string synthesizer_agent;  // empty: no synthesizer
    std::string work_role;          // "step", "worker"
  };
  PatternDriver(const v1::FlowSpec& spec, const RunLimits& limits, Roles roles);

  // The planner's prompt for the run's goal.
  virtual std::string PlannerPrompt(const std::string& goal) const = 0;
  // The plan is in: create the work tasks and make the phase `active`.
  virtual void OnPlan(RunState& run, std::vector<flow::PlannedTask> plan, int64_t now_ms) = 0;
  // `active`: judge work tasks that just finished, ready what may run; true
  // while work remains. May end the run (a worker failure that fails it).
  virtual bool DrainWork(RunState& run, int64_t now_ms) = 0;
  // No work left: start a decider task, or Conclude.
  virtual void AfterWork(RunState& run, int64_t now_ms) = 0;
  // The decider task the run waits on in `phase`; nullptr outside decisions.
  virtual const store::TaskRecord* Decider(const RunState& run, const std::string& phase) const = 0;
  // A decider completed: act on its answer.
  virtual void OnDecision(RunState& run, const store::TaskRecord& decider, int64_t now_ms) = 0;
  // The results so far: the output of a run that fails or is not synthesized.
  virtual std::string Report(const RunState& run) const = 0;
  // The synthesizer's prompt over the results.
  virtual std::string SynthesizerPrompt(const RunState& run) const = 0;
  // Whether the synthesizer may run now (a supervisor waits out escalations).
  virtual bool ReadyToSynthesize(const RunState&) const { return true; }
  // Ends the run with the pattern's outcome (after the synthesizer, if any).
  virtual void Finish(RunState& run, int64_t now_ms) = 0;
  // Resume of a run that reached its end, before the rewind (a supervisor
  // sends back what its reviewer did not accept).
  virtual void BeforeRewind(RunState&, int64_t) {}
  // Any resume, before the rewind (a plan approval that was rejected asks
  // again).
  virtual void BeforeResume(RunState&, int64_t) {}
  // The iteration shown in board_meta events.
  virtual int Iteration(const RunState& run) const = 0;

  // Synthesizes, or finishes when there is no synthesizer (or not yet).
  void Conclude(RunState& run, int64_t now_ms);
  // The synthesizer's output once it completed, else "".
  static std::string SynthesizedOutput(const RunState& run);
  std::string Goal(const RunState& run) const;
  // A new task of the run with the flow's timeout and `max_attempts`.
  store::TaskRecord NewTask(RunState& run, std::string id, std::string role, std::string agent,
                            std::string prompt, int max_attempts, int64_t now_ms) const;

  v1::FlowSpec spec_;
  RunLimits limits_;
  int max_attempts_ = 1;  // maxAttemptsPerTask

 private:
  Roles roles_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PATTERN_DRIVER_H_
