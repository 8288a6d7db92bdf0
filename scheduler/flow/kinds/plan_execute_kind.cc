#include "scheduler/flow/kinds/plan_execute_kind.h"

#include "absl/strings/str_cat.h"
#include "scheduler/flow/flow_names.h"
#include "scheduler/flow/json_reader.h"
#include "scheduler/flow/json_write.h"
#include "scheduler/flow/kinds/supervisor_kind.h"
#include "scheduler/flow/pattern_approval.h"
#include "scheduler/flow/template_check.h"

namespace taskboard::flow {

void DecodePlanExecute(const Json& value, const std::string& path, v1::PlanExecuteSpec* spec,
                       FlowErrorList* errors) {
  JsonReader reader(value, path, errors);
  spec->set_goal(reader.String("goal").value_or(""));
  spec->set_planner_agent(reader.String("plannerAgent").value_or(""));
  spec->set_executor_agent(reader.String("executorAgent").value_or(""));
  if (const Json* nested = reader.Raw("stepExecutor"); nested != nullptr && !nested->is_null()) {
    // {flow: NAME} runs a saved flow per step; anything else is a supervisor.
    if (nested->is_object() && nested->contains("flow")) {
      JsonReader executor(*nested, reader.FieldPath("stepExecutor"), errors);
      spec->set_step_flow(executor.String("flow").value_or(""));
      executor.RejectUnknownFields();
    } else {
      DecodeSupervisor(*nested, reader.FieldPath("stepExecutor"), spec->mutable_step_executor(),
                       errors);
    }
  }
  if (auto evaluator = reader.String("evaluator")) {
    if (auto known = EvaluatorKindFromName(*evaluator)) {
      spec->set_evaluator(*known);
    } else {
      errors->Add(reader.FieldPath("evaluator"),
                  absl::StrCat("must be deterministic or llm (got \"", *evaluator, "\")"));
    }
  }
  spec->set_evaluator_agent(reader.String("evaluatorAgent").value_or(""));
  spec->set_enable_replanning(reader.Bool("enableReplanning").value_or(false));
  spec->set_replanner_agent(reader.String("replannerAgent").value_or(""));
  spec->set_max_iterations(static_cast<int32_t>(reader.Int("maxIterations", 1, 100).value_or(0)));
  spec->set_max_concurrency(
      static_cast<int32_t>(reader.Int("maxConcurrency", 1, 10000).value_or(0)));
  spec->set_synthesizer_agent(reader.String("synthesizerAgent").value_or(""));
  spec->set_execution_instructions(reader.String("executionInstructions").value_or(""));
  spec->set_synthesize_instructions(reader.String("synthesizeInstructions").value_or(""));
  if (const Json* approve = reader.Raw("approvePlan"); approve != nullptr) {
    DecodeApprovePlan(*approve, reader.FieldPath("approvePlan"), spec, errors);
  }
  reader.RejectUnknownFields();
}

Json EncodePlanExecute(const v1::PlanExecuteSpec& spec) {
  Json out = Json::object();
  SetString(out, "goal", spec.goal());
  SetString(out, "plannerAgent", spec.planner_agent());
  SetString(out, "executorAgent", spec.executor_agent());
  if (spec.has_step_executor()) out["stepExecutor"] = EncodeSupervisor(spec.step_executor());
  if (!spec.step_flow().empty()) out["stepExecutor"] = Json{{"flow", spec.step_flow()}};
  SetString(out, "evaluator", std::string(EvaluatorKindName(spec.evaluator())));
  SetString(out, "evaluatorAgent", spec.evaluator_agent());
  if (spec.enable_replanning()) out["enableReplanning"] = true;
  SetString(out, "replannerAgent", spec.replanner_agent());
  SetInt(out, "maxIterations", spec.max_iterations());
  SetInt(out, "maxConcurrency", spec.max_concurrency());
  SetString(out, "synthesizerAgent", spec.synthesizer_agent());
  SetString(out, "executionInstructions", spec.execution_instructions());
  SetString(out, "synthesizeInstructions", spec.synthesize_instructions());
  if (spec.has_plan_approval()) out["approvePlan"] = EncodePatternApproval(spec.plan_approval());
  return out;
}

void ValidatePlanExecute(const v1::PlanExecuteSpec& spec, const std::string& path, bool in_phase,
                         const absl::flat_hash_set<std::string>& args, FlowErrorList* errors) {
  if (!in_phase && spec.goal().empty())
    errors->Add(JoinPath(path, "goal"), "a plan-and-execute flow needs a goal");
  CheckGoal(spec.goal(), JoinPath(path, "goal"), args, errors);
  if (spec.has_step_executor()) {
    if (!spec.executor_agent().empty()) {
      errors->Add(JoinPath(path, "executorAgent"),
                  "use either executorAgent or stepExecutor, not both");
    }
    ValidateSupervisor(spec.step_executor(), JoinPath(path, "stepExecutor"), /*nested=*/true, args,
                       errors);
  } else if (!spec.step_flow().empty() && !spec.executor_agent().empty()) {
    errors->Add(JoinPath(path, "executorAgent"),
                "use either executorAgent or stepExecutor, not both");
  }
  if (spec.has_plan_approval()) {
    ValidatePatternApproval(spec.plan_approval(), JoinPath(path, "approvePlan"), errors);
  }
  // The deterministic evaluator only counts iterations: with it a flow that
  // asks for replanning would silently never replan.
  if (spec.enable_replanning() && spec.evaluator() == v1::EVALUATOR_KIND_DETERMINISTIC) {
    errors->Add(JoinPath(path, "evaluator"),
                "enableReplanning needs the llm evaluator (the deterministic one never replans): "
                "set `evaluator: llm`, or remove `evaluator` (it then defaults to llm), or drop "
                "enableReplanning");
  }
}

void VisitPlanExecuteAgents(const std::string& path, v1::PlanExecuteSpec* spec, bool in_phase,
                            const AgentVisit& visit) {
  VisitAgent(path + ".plannerAgent", spec->mutable_planner_agent(), visit);
  if (spec->has_step_executor()) {
    VisitSupervisorAgents(path + ".stepExecutor", spec->mutable_step_executor(), false, visit);
  } else if (!in_phase && spec->step_flow().empty()) {
    VisitAgent(path + ".executorAgent", spec->mutable_executor_agent(), visit);
  }
  if (spec->evaluator() == v1::EVALUATOR_KIND_LLM) {
    VisitAgent(path + ".evaluatorAgent", spec->mutable_evaluator_agent(), visit);
  }
}

namespace {

void DecodePlanExecuteFlow(JsonReader&, const Json& block, const std::string& path,
                           v1::FlowSpec* spec, FlowErrorList* errors) {
  DecodePlanExecute(block, path, spec->mutable_plan_and_execute(), errors);
}

void EncodePlanExecuteFlow(const v1::FlowSpec& spec, Json& out) {
  out["planAndExecute"] = EncodePlanExecute(spec.plan_and_execute());
}

void ValidatePlanExecuteFlow(const v1::FlowSpec& spec, const absl::flat_hash_set<std::string>& args,
                             FlowErrorList* errors) {
  ValidatePlanExecute(spec.plan_and_execute(), "planAndExecute", /*in_phase=*/false, args, errors);
}

void VisitPlanExecuteFlowAgents(v1::FlowSpec* spec, const AgentVisit& visit) {
  VisitPlanExecuteAgents("planAndExecute", spec->mutable_plan_and_execute(), false, visit);
}

DeclaredBounds PlanExecuteBounds(const v1::FlowSpec& spec) {
  const v1::PlanExecuteSpec& plan = spec.plan_and_execute();
  DeclaredBounds bounds;
  bounds.iterations.push_back({"planAndExecute.maxIterations", plan.max_iterations()});
  if (plan.has_step_executor()) {
    bounds.iterations.push_back(
        {"planAndExecute.stepExecutor.maxIterations", plan.step_executor().max_iterations()});
  }
  return bounds;
}

std::vector<FlowRole> PlanExecuteRoles(const v1::FlowSpec& spec) {
  const v1::PlanExecuteSpec& plan = spec.plan_and_execute();
  std::vector<FlowRole> roles = {{"planner", plan.planner_agent(), ""},
                                 {"executor", plan.executor_agent(), ""},
                                 {"evaluator", plan.evaluator_agent(), ""},
                                 {"replanner", plan.replanner_agent(), ""},
                                 {"synthesizer", plan.synthesizer_agent(), ""}};
  if (plan.has_step_executor()) {
    roles.push_back({"", "", "each step runs as a child supervisor run:"});
    for (FlowRole& role : SupervisorRoles(plan.step_executor())) roles.push_back(std::move(role));
  }
  if (!plan.step_flow().empty()) {
    roles.push_back({"", "",
                     absl::StrCat("each step runs as a child run of the saved flow '",
                                  plan.step_flow(), "' (arg goal: the step's goal)")});
  }
  return roles;
}

}  // namespace

const FlowKindInfo kPlanExecuteKind = {
    .spec_case = v1::FlowSpec::kPlanAndExecute,
    .run_kind = v1::FLOW_KIND_PLAN_AND_EXECUTE,
    .name = "plan_and_execute",
    .block = "planAndExecute",
    .is_pattern = true,
    .has_phases = false,
    .decode = &DecodePlanExecuteFlow,
    .encode = &EncodePlanExecuteFlow,
    .validate = &ValidatePlanExecuteFlow,
    .visit_agents = &VisitPlanExecuteFlowAgents,
    .declared_bounds = &PlanExecuteBounds,
    .roles = &PlanExecuteRoles,
    .as_taskflow = nullptr,
    .strip_for_active = nullptr,
};

}  // namespace taskboard::flow
