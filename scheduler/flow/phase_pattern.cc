#include "scheduler/flow/phase_pattern.h"

namespace taskboard::flow {

bool IsPatternPhase(const v1::Phase& phase) { return phase.has_plan() || phase.has_supervise(); }

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

}  // namespace taskboard::flow
