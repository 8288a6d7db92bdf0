// libFuzzer target for the readers of what pattern agents write: the
// planner's and replanner's task lists, a step's outcome, the evaluator's
// decision (plan-and-execute), the supervisor reviewer's verdicts and a
// gate's verdict. Their input is model output, so anything goes.
//
// Beyond "no crash, no sanitizer report" it checks the promises of their
// headers on every accepted input: a plan's ids are unique and non-empty and
// its deps name its own tasks, renamed replan ids do not clash, review
// scores lie in [0, 1], and a gate without a verdict passes.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "scheduler/flow/gate_verdict.h"
#include "scheduler/flow/plan_output.h"
#include "scheduler/flow/review_output.h"

namespace {

namespace flow = taskboard::flow;

absl::flat_hash_set<std::string> CheckedIds(const std::vector<flow::PlannedTask>& tasks) {
  absl::flat_hash_set<std::string> ids;
  for (const flow::PlannedTask& task : tasks) {
    if (task.id.empty() || task.goal.empty() || !ids.insert(task.id).second) std::abort();
  }
  return ids;
}

void CheckPlan(const std::vector<flow::PlannedTask>& plan) {
  const absl::flat_hash_set<std::string> ids = CheckedIds(plan);
  for (const flow::PlannedTask& task : plan) {
    for (const std::string& dep : task.deps) {
      if (!ids.contains(dep)) std::abort();
    }
  }
}

// Merges a replan into `plan` as the engine does and checks the ids stay
// unique.
void CheckReplan(const std::vector<flow::PlannedTask>& plan,
                 std::vector<flow::PlannedTask> replan) {
  absl::flat_hash_set<std::string> existing = CheckedIds(plan);
  (void)CheckedIds(replan);
  for (const flow::PlannedTask& task :
       flow::RenameReplannedTasks(existing, std::move(replan), /*replan_number=*/2)) {
    if (!existing.insert(task.id).second) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);

  absl::StatusOr<std::vector<flow::PlannedTask>> plan = flow::ParsePlan(text);
  if (plan.ok()) CheckPlan(*plan);
  absl::StatusOr<std::vector<flow::PlannedTask>> replan = flow::ParseReplan(text);
  if (plan.ok() && !replan.ok()) std::abort();  // a replan is checked less than a plan
  if (replan.ok()) {
    // Against itself, so every id clashes and gets renamed.
    CheckReplan(*replan, *replan);
  }

  (void)flow::ParseStepOutput(text);
  (void)flow::StepResultJson(text);

  absl::StatusOr<flow::EvaluatorDecision> decision = flow::ParseEvaluatorDecision(text);
  if (decision.ok() && decision->tasks.has_value()) {
    if (decision->decision != flow::EvaluatorDecisionKind::kReplan) std::abort();
    (void)CheckedIds(*decision->tasks);
  }

  absl::StatusOr<flow::Review> review = flow::ParseReview(text);
  if (review.ok()) {
    absl::flat_hash_set<std::string> reviewed;
    for (const flow::Assessment& assessment : review->assessments) {
      if (assessment.task_id.empty() || !reviewed.insert(assessment.task_id).second) std::abort();
      if (!(assessment.score >= 0 && assessment.score <= 1)) std::abort();
    }
  }

  const flow::GateVerdict verdict = flow::ParseGateVerdict(text);
  if (!verdict.found && !verdict.pass) std::abort();  // fail-open
  return 0;
}
