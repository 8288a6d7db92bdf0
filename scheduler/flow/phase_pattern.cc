#include "scheduler/flow/phase_pattern.h"

#include "absl/strings/str_cat.h"
#include "scheduler/flow/flow_names.h"

namespace taskboard::flow {

bool IsPatternPhase(const v1::Phase& phase) { return phase.has_plan() || phase.has_supervise(); }

absl::string_view PhaseTypeSpelling(const v1::Phase& phase) {
  if (phase.type() == v1::PHASE_TYPE_AGENT) {
    if (phase.has_plan()) return "plan";
    if (phase.has_supervise()) return "supervise";
  }
  return PhaseTypeName(phase.type());
}

v1::PlanExecuteSpec PhasePlan(const v1::Phase& phase) {
  v1::PlanExecuteSpec plan = phase.plan();
  if (plan.executor_agent().empty() && !plan.has_step_executor() && plan.step_flow().empty()) {
    plan.set_executor_agent(phase.agent());
  }
  return plan;
}

v1::SupervisorSpec PhaseSupervise(const v1::Phase& phase) {
  v1::SupervisorSpec supervise = phase.supervise();
  if (supervise.worker_agent().empty()) supervise.set_worker_agent(phase.agent());
  return supervise;
}

std::vector<std::pair<std::string, v1::PlanExecuteSpec*>> PlansOf(v1::FlowSpec& spec) {
  std::vector<std::pair<std::string, v1::PlanExecuteSpec*>> plans;
  if (spec.has_plan_and_execute()) {
    plans.emplace_back("planAndExecute", spec.mutable_plan_and_execute());
  }
  if (!spec.has_taskflow()) return plans;
  for (int i = 0; i < spec.taskflow().phases_size(); ++i) {
    v1::Phase& phase = *spec.mutable_taskflow()->mutable_phases(i);
    if (phase.has_plan()) {
      plans.emplace_back(absl::StrCat("phases[", i, "].plan"), phase.mutable_plan());
    }
  }
  return plans;
}

}  // namespace taskboard::flow
