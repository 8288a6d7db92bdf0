#ifndef TASKBOARD_SCHEDULER_ENGINE_DRIVERS_SUPERVISOR_DRIVER_H_
#define TASKBOARD_SCHEDULER_ENGINE_DRIVERS_SUPERVISOR_DRIVER_H_

// The supervisor driver (docs/semantics.md#supervisor, seed 004):
//
//   planning ──`planner` returns tasks──> working
//   working: worker tasks run, at most max_concurrency at once
//      │ all done
//      v
//   reviewing: `reviewer-N` judges this round's results:
//      accepted -> done; escalate -> stopped, reported, and the run ends
//      `blocked` (resume re-runs it); needs-revision -> (below max_iterations)
//      revised
//      │
//      with onEscalate: human, each escalated task first waits in
//      `human-review` for a person (`review-<task>-N`, an approval task):
//      approve -> accepted; revise -> needs-revision with the person's
//      comment as feedback; reject -> stays escalated
//      │
//      ├─ any needs-revision left, N < max_iterations:
//      │    `planner-(N+1)` revises their goals from the feedback, then those
//      │    workers run again with the feedback ──> working
//      ├─ `needs_replanning` (at most max_replans times): `planner-(N+1)`
//      │    plans the remaining work again; new tasks join ──> working
//      v
//   synthesizing (with a synthesizer, over the accepted results) ──> completed
//
// A planner, reviewer or synthesizer that fails for good fails the run,
// keeping the report; ResumeRun rewinds it (pattern_resume.h).
//
// Worker failures follow on_sub_task_error: skip (left out of the review and
// reported), fail (the run fails), retry (re-dispatched within
// maxAttemptsPerTask, then left out). A worker task keeps its id across
// revisions; its reviews accumulate in Task.reviews, which with the run's
// tasks and `pattern_phase` is all the state there is (restarts re-read it).
// Planned `deps` are not enforced: the seed's workers run concurrently.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/engine/drivers/pattern_driver.h"
#include "scheduler/flow/plan_output.h"
#include "scheduler/flow/review_output.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::engine {

class SupervisorDriver final : public PatternDriver {
 public:
  SupervisorDriver(const v1::FlowSpec& spec, const RunLimits& limits);

 private:
  // PatternDriver: the supervisor's decisions.
  std::string PlannerPrompt(const std::string& goal) const override;
  void OnPlan(RunState& run, std::vector<flow::PlannedTask> plan, int64_t now_ms) override;
  // Fails the run on a failed worker under onSubTaskError: fail; readies
  // pending workers up to max_concurrency; true while any runs.
  bool DrainWork(RunState& run, int64_t now_ms) override;
  // This round's results go to `reviewer-N` (or the run concludes).
  void AfterWork(RunState& run, int64_t now_ms) override;
  const store::TaskRecord* Decider(const RunState& run, const std::string& phase) const override;
  void OnDecision(RunState& run, const store::TaskRecord& decider, int64_t now_ms) override;
  std::string Report(const RunState& run) const override;
  std::string SynthesizerPrompt(const RunState& run) const override;
  bool ReadyToSynthesize(const RunState& run) const override;
  void Finish(RunState& run, int64_t now_ms) override;
  void BeforeRewind(RunState& run, int64_t now_ms) override;
  int Iteration(const RunState& run) const override;

  void StartWorkers(RunState& run, std::vector<flow::PlannedTask> plan, int64_t now_ms);
  bool DrainWorkers(RunState& run, int64_t now_ms);
  void ApplyReview(RunState& run, const store::TaskRecord& reviewer, int64_t now_ms);
  void ApplyRevision(RunState& run, const store::TaskRecord& planner, int64_t now_ms);
  // After the round's verdicts (and human reviews): revise, replan or
  // conclude.
  void ContinueAfterReview(RunState& run, const flow::Review& review, int64_t now_ms);
  // onEscalate: human: a `review-<task>-<N>` approval task for each task the
  // round escalated; false when there is none.
  bool AskHumanReviews(RunState& run, int64_t now_ms);
  // Every review of the round decided: approve accepts the task, `revise`
  // sends it back with the comment as feedback, reject keeps it escalated.
  void ApplyHumanReviews(RunState& run, int64_t now_ms);
  std::vector<const store::TaskRecord*> HumanReviews(const RunState& run) const;

  int Iterations(const RunState& run) const;
  // Revision rounds that were replans (the reviewer's needs_replanning).
  int Replans(const RunState& run) const;
  static bool IsReplan(const store::TaskRecord& planner);
  std::vector<std::string> Escalated(const RunState& run) const;
  std::vector<const store::TaskRecord*> Workers(const RunState& run) const;
  // accepted | needs-revision | escalated | failed | in_progress
  static std::string Status(const store::TaskRecord& worker);
  // `position`: the task's place in the plan (kept from `previous` when
  // this is a revision).
  store::TaskRecord NewWorker(RunState& run, const std::string& id, const std::string& goal,
                              const store::TaskRecord* previous, int position,
                              int64_t now_ms) const;

  const v1::SupervisorSpec& supervisor_;
  int max_concurrency_ = 3;
  int max_iterations_ = 3;
  int max_replans_ = 1;
  bool human_ = false;  // onEscalate: human
};

// The driver of supervisor runs (driver_factory.cc).
std::unique_ptr<Driver> MakeSupervisorDriver(const v1::FlowSpec& spec, const RunLimits& limits);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_DRIVERS_SUPERVISOR_DRIVER_H_
