#include "scheduler/flow/pattern_approval.h"

#include "absl/strings/str_cat.h"
#include "scheduler/flow/approval_phase.h"
#include "scheduler/flow/json_reader.h"

namespace taskboard::flow {
namespace {

// As a phase's timeoutSeconds: a week at most.
constexpr int64_t kMaxApprovalTimeoutSeconds = 7 * 24 * 3600;

// `{approvers, timeoutSeconds, onTimeout}` at `path`.
v1::Approval DecodeApprovalObject(const Json& value, const std::string& path,
                                  FlowErrorList* errors) {
  v1::Approval approval;
  JsonReader reader(value, path, errors);
  if (!reader.valid()) return approval;
  DecodeOnTimeoutAndApprovers(reader, &approval, errors);
  approval.set_timeout_seconds(static_cast<int32_t>(
      reader.Int("timeoutSeconds", 1, kMaxApprovalTimeoutSeconds).value_or(0)));
  reader.RejectUnknownFields();
  return approval;
}

}  // namespace

void DecodeApprovePlan(const Json& value, const std::string& path, v1::PlanExecuteSpec* spec,
                       FlowErrorList* errors) {
  if (value.is_null()) return;
  if (value.is_boolean()) {
    if (value.get<bool>()) spec->mutable_plan_approval();
    return;
  }
  if (!value.is_object()) {
    errors->Add(path, absl::StrCat("must be true, false or {approvers, timeoutSeconds, onTimeout} "
                                   "(got ",
                                   DescribeJsonType(value), ")"));
    return;
  }
  *spec->mutable_plan_approval() = DecodeApprovalObject(value, path, errors);
}

void DecodeOnEscalate(const Json& value, const std::string& path, v1::SupervisorSpec* spec,
                      FlowErrorList* errors) {
  if (value.is_null()) return;
  const std::string name = value.is_string() ? value.get<std::string>() : "";
  if (name == "report") {
    spec->set_on_escalate(v1::ON_ESCALATE_REPORT);
  } else if (name == "human") {
    spec->set_on_escalate(v1::ON_ESCALATE_HUMAN);
  } else {
    errors->Add(path, absl::StrCat("must be report or human (got ",
                                   value.is_string() ? absl::StrCat("\"", name, "\"")
                                                     : DescribeJsonType(value),
                                   ")"));
  }
}

void DecodeHumanReview(const Json& value, const std::string& path, v1::SupervisorSpec* spec,
                       FlowErrorList* errors) {
  if (value.is_null()) return;
  if (!value.is_object()) {
    errors->Add(path, absl::StrCat("must be {approvers, timeoutSeconds, onTimeout} (got ",
                                   DescribeJsonType(value), ")"));
    return;
  }
  *spec->mutable_human_review() = DecodeApprovalObject(value, path, errors);
}

Json EncodePatternApproval(const v1::Approval& approval) {
  Json out = Json::object();
  if (!approval.approvers().empty()) {
    out["approvers"] =
        Json(std::vector<std::string>(approval.approvers().begin(), approval.approvers().end()));
  }
  if (approval.timeout_seconds() > 0) out["timeoutSeconds"] = approval.timeout_seconds();
  if (absl::string_view name = ApprovalOnTimeoutName(approval.on_timeout()); !name.empty()) {
    out["onTimeout"] = std::string(name);
  }
  if (out.empty()) return true;
  return out;
}

absl::string_view OnEscalateName(v1::OnEscalate on_escalate) {
  switch (on_escalate) {
    case v1::ON_ESCALATE_REPORT:
      return "report";
    case v1::ON_ESCALATE_HUMAN:
      return "human";
    default:
      return "";
  }
}

void ValidatePatternApproval(const v1::Approval& approval, const std::string& path,
                             FlowErrorList* errors) {
  ValidateApprovers(approval, path, errors);
  if (approval.on_timeout() != v1::APPROVAL_ON_TIMEOUT_UNSPECIFIED &&
      approval.timeout_seconds() <= 0) {
    errors->Add(JoinPath(path, "onTimeout"),
                "onTimeout needs `timeoutSeconds` here: how long to wait for a decision");
  }
}

void ValidateHumanReview(const v1::SupervisorSpec& spec, const std::string& path,
                         FlowErrorList* errors) {
  if (!spec.has_human_review()) return;
  if (spec.on_escalate() != v1::ON_ESCALATE_HUMAN) {
    errors->Add(JoinPath(path, "humanReview"),
                "humanReview says who reviews escalations, which only a person does with "
                "`onEscalate: human`: add it, or remove humanReview");
  }
  ValidatePatternApproval(spec.human_review(), JoinPath(path, "humanReview"), errors);
}

}  // namespace taskboard::flow
