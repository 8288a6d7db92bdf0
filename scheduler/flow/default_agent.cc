#include "scheduler/flow/default_agent.h"

#include <functional>

#include "absl/strings/str_cat.h"
#include "scheduler/flow/phase_pattern.h"

namespace taskboard::flow {
namespace {

// Calls `visit` with the path and field of every agent left unset.
using Visit = std::function<void(const std::string& path, std::string* agent)>;

void VisitAgent(const std::string& path, std::string* agent, const Visit& visit) {
  if (agent->empty()) visit(path, agent);
}

// A parallel phase's agent matters only to branches without their own.
// An approval phase, or a gate with an approval, runs no agent: a person
// decides.
bool PhaseNeedsAgent(const v1::Phase& phase) {
  if (phase.has_approval()) return false;
  if (phase.type() != v1::PHASE_TYPE_PARALLEL) return true;
  for (const v1::Branch& branch : phase.branches()) {
    if (branch.agent().empty()) return true;
  }
  return false;
}

// `in_phase`: the block of a pattern phase, whose working agent (the
// supervisor's worker, the plan's executor) is the phase's agent
// (phase_pattern.h), visited with the phase.
void VisitSupervisor(const std::string& path, v1::SupervisorSpec* spec, bool in_phase,
                     const Visit& visit) {
  VisitAgent(absl::StrCat(path, ".plannerAgent"), spec->mutable_planner_agent(), visit);
  if (!in_phase)
    VisitAgent(absl::StrCat(path, ".workerAgent"), spec->mutable_worker_agent(), visit);
  VisitAgent(absl::StrCat(path, ".reviewerAgent"), spec->mutable_reviewer_agent(), visit);
}

void VisitPlanExecute(const std::string& path, v1::PlanExecuteSpec* spec, bool in_phase,
                      const Visit& visit) {
  VisitAgent(path + ".plannerAgent", spec->mutable_planner_agent(), visit);
  if (spec->has_step_executor()) {
    VisitSupervisor(path + ".stepExecutor", spec->mutable_step_executor(), false, visit);
  } else if (!in_phase && spec->step_flow().empty()) {
    VisitAgent(path + ".executorAgent", spec->mutable_executor_agent(), visit);
  }
  if (spec->evaluator() == v1::EVALUATOR_KIND_LLM) {
    VisitAgent(path + ".evaluatorAgent", spec->mutable_evaluator_agent(), visit);
  }
}

void VisitUnsetAgents(v1::FlowSpec* spec, const Visit& visit) {
  switch (spec->kind_case()) {
    case v1::FlowSpec::kTaskflow:
      for (int i = 0; i < spec->taskflow().phases_size(); ++i) {
        v1::Phase* phase = spec->mutable_taskflow()->mutable_phases(i);
        if (!PhaseNeedsAgent(*phase)) continue;
        const std::string path = absl::StrCat("phases[", i, "]");
        VisitAgent(path + ".agent", phase->mutable_agent(), visit);
        if (phase->has_plan()) VisitPlanExecute(path + ".plan", phase->mutable_plan(), true, visit);
        if (phase->has_supervise()) {
          VisitSupervisor(path + ".supervise", phase->mutable_supervise(), true, visit);
        }
      }
      break;
    case v1::FlowSpec::kBoard:
      for (int i = 0; i < spec->board().tasks_size(); ++i) {
        VisitAgent(absl::StrCat("board.tasks[", i, "].agent"),
                   spec->mutable_board()->mutable_tasks(i)->mutable_agent(), visit);
      }
      break;
    case v1::FlowSpec::kPlanAndExecute:
      VisitPlanExecute("planAndExecute", spec->mutable_plan_and_execute(), false, visit);
      break;
    case v1::FlowSpec::kSupervisor:
      VisitSupervisor("supervisor", spec->mutable_supervisor(), false, visit);
      break;
    case v1::FlowSpec::KIND_NOT_SET:
      break;
  }
}

// Replanning needs an evaluator that can decide to replan.
void DefaultEvaluator(v1::PlanExecuteSpec* plan) {
  if (plan->enable_replanning() && plan->evaluator() == v1::EVALUATOR_KIND_UNSPECIFIED) {
    plan->set_evaluator(v1::EVALUATOR_KIND_LLM);
  }
}

void DefaultEvaluator(v1::FlowSpec* spec) {
  for (auto& [path, plan] : PlansOf(*spec)) DefaultEvaluator(plan);
}

}  // namespace

std::vector<std::string> UnsetAgentPaths(const v1::FlowSpec& spec) {
  v1::FlowSpec copy = spec;
  DefaultEvaluator(&copy);
  std::vector<std::string> paths;
  VisitUnsetAgents(&copy, [&](const std::string& path, std::string*) { paths.push_back(path); });
  return paths;
}

void FillFlowDefaults(const std::string& agent, v1::FlowSpec* spec) {
  DefaultEvaluator(spec);
  if (agent.empty()) return;
  VisitUnsetAgents(spec, [&](const std::string&, std::string* field) { *field = agent; });
}

}  // namespace taskboard::flow
