#include "scheduler/flow/kinds/supervisor_kind.h"

#include "absl/strings/str_cat.h"
#include "scheduler/flow/flow_names.h"
#include "scheduler/flow/json_reader.h"
#include "scheduler/flow/json_write.h"
#include "scheduler/flow/pattern_approval.h"
#include "scheduler/flow/template_check.h"

namespace taskboard::flow {

void DecodeSupervisor(const Json& value, const std::string& path, v1::SupervisorSpec* spec,
                      FlowErrorList* errors) {
  JsonReader reader(value, path, errors);
  spec->set_goal(reader.String("goal").value_or(""));
  spec->set_planner_agent(reader.String("plannerAgent").value_or(""));
  spec->set_worker_agent(reader.String("workerAgent").value_or(""));
  spec->set_reviewer_agent(reader.String("reviewerAgent").value_or(""));
  for (std::string& criterion : reader.StringList("reviewCriteria")) {
    spec->add_review_criteria(std::move(criterion));
  }
  spec->set_max_iterations(static_cast<int32_t>(reader.Int("maxIterations", 1, 100).value_or(0)));
  spec->set_max_concurrency(
      static_cast<int32_t>(reader.Int("maxConcurrency", 1, 10000).value_or(0)));
  spec->set_synthesizer_agent(reader.String("synthesizerAgent").value_or(""));
  if (auto replans = reader.Int("maxReplans", 0, 100)) {
    spec->set_max_replans(static_cast<int32_t>(*replans));
  }
  if (auto mode = reader.String("onSubTaskError")) {
    if (auto known = SubTaskErrorModeFromName(*mode)) {
      spec->set_on_sub_task_error(*known);
    } else {
      errors->Add(reader.FieldPath("onSubTaskError"),
                  absl::StrCat("must be skip, fail or retry (got \"", *mode, "\")"));
    }
  }
  if (const Json* on_escalate = reader.Raw("onEscalate"); on_escalate != nullptr) {
    DecodeOnEscalate(*on_escalate, reader.FieldPath("onEscalate"), spec, errors);
  }
  if (const Json* review = reader.Raw("humanReview"); review != nullptr) {
    DecodeHumanReview(*review, reader.FieldPath("humanReview"), spec, errors);
  }
  reader.RejectUnknownFields();
}

Json EncodeSupervisor(const v1::SupervisorSpec& spec) {
  Json out = Json::object();
  SetString(out, "goal", spec.goal());
  SetString(out, "plannerAgent", spec.planner_agent());
  SetString(out, "workerAgent", spec.worker_agent());
  SetString(out, "reviewerAgent", spec.reviewer_agent());
  if (!spec.review_criteria().empty()) out["reviewCriteria"] = Strings(spec.review_criteria());
  SetInt(out, "maxIterations", spec.max_iterations());
  SetInt(out, "maxConcurrency", spec.max_concurrency());
  SetString(out, "synthesizerAgent", spec.synthesizer_agent());
  SetString(out, "onSubTaskError", std::string(SubTaskErrorModeName(spec.on_sub_task_error())));
  if (spec.has_max_replans()) out["maxReplans"] = spec.max_replans();
  SetString(out, "onEscalate", std::string(OnEscalateName(spec.on_escalate())));
  if (spec.has_human_review()) out["humanReview"] = EncodePatternApproval(spec.human_review());
  return out;
}

// Omitted agents are the scheduler's default agent (default_agent.h), so
// only contradictions are errors here.
void ValidateSupervisor(const v1::SupervisorSpec& spec, const std::string& path, bool nested,
                        const absl::flat_hash_set<std::string>& args, FlowErrorList* errors) {
  if (!nested && spec.goal().empty()) {
    errors->Add(JoinPath(path, "goal"), "a supervisor flow needs a goal");
  }
  CheckGoal(spec.goal(), JoinPath(path, "goal"), args, errors);
  ValidateHumanReview(spec, path, errors);
}

void VisitSupervisorAgents(const std::string& path, v1::SupervisorSpec* spec, bool in_phase,
                           const AgentVisit& visit) {
  VisitAgent(absl::StrCat(path, ".plannerAgent"), spec->mutable_planner_agent(), visit);
  if (!in_phase)
    VisitAgent(absl::StrCat(path, ".workerAgent"), spec->mutable_worker_agent(), visit);
  VisitAgent(absl::StrCat(path, ".reviewerAgent"), spec->mutable_reviewer_agent(), visit);
}

std::vector<FlowRole> SupervisorRoles(const v1::SupervisorSpec& spec) {
  return {{"planner", spec.planner_agent(), ""},
          {"worker", spec.worker_agent(), ""},
          {"reviewer", spec.reviewer_agent(), ""},
          {"synthesizer", spec.synthesizer_agent(), ""}};
}

namespace {

void DecodeSupervisorFlow(JsonReader&, const Json& block, const std::string& path,
                          v1::FlowSpec* spec, FlowErrorList* errors) {
  DecodeSupervisor(block, path, spec->mutable_supervisor(), errors);
}

void EncodeSupervisorFlow(const v1::FlowSpec& spec, Json& out) {
  out["supervisor"] = EncodeSupervisor(spec.supervisor());
}

void ValidateSupervisorFlow(const v1::FlowSpec& spec, const absl::flat_hash_set<std::string>& args,
                            FlowErrorList* errors) {
  ValidateSupervisor(spec.supervisor(), "supervisor", /*nested=*/false, args, errors);
}

void VisitSupervisorFlowAgents(v1::FlowSpec* spec, const AgentVisit& visit) {
  VisitSupervisorAgents("supervisor", spec->mutable_supervisor(), false, visit);
}

DeclaredBounds SupervisorBounds(const v1::FlowSpec& spec) {
  DeclaredBounds bounds;
  bounds.iterations.push_back({"supervisor.maxIterations", spec.supervisor().max_iterations()});
  return bounds;
}

std::vector<FlowRole> SupervisorFlowRoles(const v1::FlowSpec& spec) {
  return SupervisorRoles(spec.supervisor());
}

}  // namespace

const FlowKindInfo kSupervisorKind = {
    .spec_case = v1::FlowSpec::kSupervisor,
    .run_kind = v1::FLOW_KIND_SUPERVISOR,
    .name = "supervisor",
    .block = "supervisor",
    .is_pattern = true,
    .has_phases = false,
    .decode = &DecodeSupervisorFlow,
    .encode = &EncodeSupervisorFlow,
    .validate = &ValidateSupervisorFlow,
    .visit_agents = &VisitSupervisorFlowAgents,
    .declared_bounds = &SupervisorBounds,
    .roles = &SupervisorFlowRoles,
    .as_taskflow = nullptr,
    .strip_for_active = nullptr,
};

}  // namespace taskboard::flow
