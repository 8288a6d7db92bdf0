#include "scheduler/flow/default_agent.h"

#include "scheduler/flow/kinds/flow_kind.h"
#include "scheduler/flow/phase_pattern.h"

namespace taskboard::flow {
namespace {

// Every agent the flow's kind leaves unset.
void VisitUnsetAgents(v1::FlowSpec* spec, const AgentVisit& visit) {
  if (const FlowKindInfo* kind = FindFlowKind(*spec)) kind->visit_agents(spec, visit);
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

void VisitAgent(const std::string& path, std::string* agent, const AgentVisit& visit) {
  if (agent->empty()) visit(path, agent);
}

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