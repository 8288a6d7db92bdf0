#include "scheduler/engine/drivers/pattern_driver.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/state/task_states.h"

namespace taskboard::engine {

PatternDriver::PatternDriver(const v1::FlowSpec& spec, const RunLimits& limits, Roles roles)
    : spec_(spec), limits_(limits), roles_(std::move(roles)) {
  max_attempts_ = spec_.max_attempts_per_task() > 0 ? spec_.max_attempts_per_task() : 1;
}

std::string PatternDriver::Goal(const RunState& run) const {
  return PatternGoal(run, roles_.goal_template);
}

store::TaskRecord PatternDriver::NewTask(RunState& run, std::string id, std::string role,
                                         std::string agent, std::string prompt, int max_attempts,
                                         int64_t now_ms) const {
  return NewPatternTask(run, std::move(id), std::move(role), std::move(agent), std::move(prompt),
                        {spec_.timeout_seconds(), max_attempts}, now_ms);
}

void PatternDriver::Start(RunState& run, int64_t now_ms) {
  if (run.FindTask(kPlannerId) != nullptr) return Advance(run, now_ms);  // recovered
  const std::string goal = Goal(run);
  store::TaskRecord planner = NewTask(run, kPlannerId, "planner", roles_.planner_agent,
                                      PlannerPrompt(goal), max_attempts_, now_ms);
  planner.mutable_task()->set_title(goal);
  planner.mutable_assignment()->set_output_schema_json(std::string(flow::PlanOutputSchema()));
  planner.mutable_assignment()->set_input_json(DumpJson(Json{{"goal", goal}}));
  MarkReady(planner, now_ms);
  run.PutTask(std::move(planner));
  SetPatternPhase(run, pattern_phase::kPlanning, 1, "");
}

void PatternDriver::Advance(RunState& run, int64_t now_ms) {
  auto ended = [&run] { return IsTerminal(run.record().run().status()); };
  if (ended()) return;
  const std::string phase = run.record().pattern_phase();
  if (phase == pattern_phase::kPlanning) {
    std::optional<std::vector<flow::PlannedTask>> plan = TakePlan(run, kPlannerId, limits_, now_ms);
    if (!plan.has_value()) return;
    OnPlan(run, *std::move(plan), now_ms);
  } else if (const store::TaskRecord* decider = Decider(run, phase); decider != nullptr) {
    if (decider->task().state() == v1::TASK_STATE_FAILED) {
      // The results stay in the output and the tasks: a resume asks again.
      return FailPatternRun(run, *decider, Report(run), now_ms);
    }
    if (decider->task().state() != v1::TASK_STATE_COMPLETED) return;
    OnDecision(run, *decider, now_ms);
  }
  if (ended()) return;
  if (run.record().pattern_phase() == pattern_phase::kActive) {
    if (DrainWork(run, now_ms) || ended()) return;
    AfterWork(run, now_ms);
  }
  if (ended() || run.record().pattern_phase() != pattern_phase::kSynthesizing) return;
  const store::TaskRecord* synthesizer = run.FindTask(kSynthesizerId);
  if (synthesizer == nullptr) return;
  if (synthesizer->task().state() == v1::TASK_STATE_FAILED) {
    return FailPatternRun(run, *synthesizer, Report(run), now_ms);
  }
  if (synthesizer->task().state() == v1::TASK_STATE_COMPLETED) Finish(run, now_ms);
}

void PatternDriver::Resume(RunState& run, int64_t now_ms) {
  if (run.FindTask(kPlannerId) == nullptr) return Start(run, now_ms);
  BeforeResume(run, now_ms);
  if (run.record().pattern_phase() == pattern_phase::kCompleted) BeforeRewind(run, now_ms);
  RewindPatternRun(run, {roles_.work_role, kSynthesizerId}, now_ms);
  Advance(run, now_ms);
}

void PatternDriver::Conclude(RunState& run, int64_t now_ms) {
  if (roles_.synthesizer_agent.empty() || !ReadyToSynthesize(run)) return Finish(run, now_ms);
  store::TaskRecord synthesizer =
      NewTask(run, kSynthesizerId, "synthesizer", roles_.synthesizer_agent, SynthesizerPrompt(run),
              max_attempts_, now_ms);
  synthesizer.mutable_task()->set_title("synthesize the results");
  MarkReady(synthesizer, now_ms);
  run.PutTask(std::move(synthesizer));
  SetPatternPhase(run, pattern_phase::kSynthesizing, Iteration(run), "");
}

std::string PatternDriver::SynthesizedOutput(const RunState& run) {
  const store::TaskRecord* synthesizer = run.FindTask(kSynthesizerId);
  if (synthesizer == nullptr || synthesizer->task().state() != v1::TASK_STATE_COMPLETED) return "";
  return synthesizer->task().output();
}

}  // namespace taskboard::engine
