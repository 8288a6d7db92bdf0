#include "scheduler/flow/approval_phase.h"

#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/flow/interpolation.h"

namespace taskboard::flow {
namespace {

struct OnTimeoutName {
  v1::ApprovalOnTimeout value;
  absl::string_view name;
};
constexpr OnTimeoutName kOnTimeouts[] = {
    {v1::APPROVAL_ON_TIMEOUT_REJECT, "reject"},
    {v1::APPROVAL_ON_TIMEOUT_APPROVE, "approve"},
    {v1::APPROVAL_ON_TIMEOUT_FAIL, "fail"},
};

void DecodeForm(const Json& value, const std::string& path, v1::Approval* approval,
                FlowErrorList* errors) {
  if (!value.is_array()) {
    errors->Add(path, absl::StrCat("must be an array of {name, description?, required?} (got ",
                                   DescribeJsonType(value), ")"));
    return;
  }
  for (size_t i = 0; i < value.size(); ++i) {
    v1::ApprovalField* field = approval->add_form();
    JsonReader reader(value[i], IndexPath(path, i), errors);
    field->set_name(reader.String("name").value_or(""));
    field->set_description(reader.String("description").value_or(""));
    field->set_required(reader.Bool("required").value_or(false));
    reader.RejectUnknownFields();
  }
}

bool HasAnyApprovalField(const v1::Approval& approval) {
  return !approval.prompt().empty() || !approval.choices().empty() || !approval.form().empty() ||
         approval.on_timeout() != v1::APPROVAL_ON_TIMEOUT_UNSPECIFIED ||
         !approval.approvers().empty();
}

// The DSL name of the first approval field `approval` sets, for errors.
const char* FirstApprovalField(const v1::Approval& approval) {
  if (!approval.prompt().empty()) return "prompt";
  if (!approval.choices().empty()) return "choices";
  if (!approval.form().empty()) return "form";
  if (approval.on_timeout() != v1::APPROVAL_ON_TIMEOUT_UNSPECIFIED) return "onTimeout";
  return "approvers";
}

void CheckName(const std::string& name, const std::string& path, const char* what,
               std::set<std::string>& seen, FlowErrorList* errors) {
  if (name.empty()) {
    errors->Add(path, absl::StrCat("a ", what, " needs a name"));
  } else if (!IsPlaceholderSegment(name)) {
    errors->Add(path, absl::StrCat("'", name, "' is not a valid ", what,
                                   " name (letters, digits, '_' and '-')"));
  } else if (!seen.insert(name).second) {
    errors->Add(path, absl::StrCat("duplicate ", what, " '", name, "'"));
  }
}

}  // namespace

absl::string_view ApprovalOnTimeoutName(v1::ApprovalOnTimeout on_timeout) {
  for (const OnTimeoutName& entry : kOnTimeouts) {
    if (entry.value == on_timeout) return entry.name;
  }
  return "";
}

void DecodeOnTimeoutAndApprovers(JsonReader& reader, v1::Approval* approval,
                                 FlowErrorList* errors) {
  if (auto on_timeout = reader.String("onTimeout")) {
    bool known = false;
    for (const OnTimeoutName& entry : kOnTimeouts) {
      if (entry.name == *on_timeout) {
        approval->set_on_timeout(entry.value);
        known = true;
      }
    }
    if (!known) {
      errors->Add(reader.FieldPath("onTimeout"),
                  absl::StrCat("must be reject, approve or fail (got \"", *on_timeout, "\")"));
    }
  }
  for (std::string& approver : reader.StringList("approvers")) {
    approval->add_approvers(std::move(approver));
  }
}

void ValidateApprovers(const v1::Approval& approval, const std::string& path,
                       FlowErrorList* errors) {
  for (int i = 0; i < approval.approvers_size(); ++i) {
    const std::string& approver = approval.approvers(i);
    const std::string approver_path = IndexPath(JoinPath(path, "approvers"), i);
    if (absl::StartsWith(approver, "role:")) {
      if (approver != "role:admin" && approver != "role:client") {
        errors->Add(approver_path, absl::StrCat("unknown role in '", approver,
                                                "'; use role:admin, role:client or a token name"));
      }
    } else if (approver.empty()) {
      errors->Add(approver_path, "an approver needs a token name, role:admin or role:client");
    }
  }
}

void DecodeApprovalFields(JsonReader& reader, v1::Phase* phase, FlowErrorList* errors) {
  v1::Approval approval;
  approval.set_prompt(reader.String("prompt").value_or(""));
  for (std::string& choice : reader.StringList("choices")) approval.add_choices(std::move(choice));
  if (const Json* form = reader.Raw("form"); form != nullptr && !form->is_null()) {
    DecodeForm(*form, reader.FieldPath("form"), &approval, errors);
  }
  DecodeOnTimeoutAndApprovers(reader, &approval, errors);
  if (phase->type() == v1::PHASE_TYPE_APPROVAL || HasAnyApprovalField(approval)) {
    *phase->mutable_approval() = std::move(approval);
  }
}

void EncodeApprovalFields(const v1::Phase& phase, Json& out) {
  if (!phase.has_approval()) return;
  const v1::Approval& approval = phase.approval();
  if (!approval.prompt().empty()) out["prompt"] = approval.prompt();
  if (!approval.choices().empty()) {
    out["choices"] =
        Json(std::vector<std::string>(approval.choices().begin(), approval.choices().end()));
  }
  if (!approval.form().empty()) {
    Json form = Json::array();
    for (const v1::ApprovalField& field : approval.form()) {
      Json f = {{"name", field.name()}};
      if (!field.description().empty()) f["description"] = field.description();
      if (field.required()) f["required"] = true;
      form.push_back(std::move(f));
    }
    out["form"] = std::move(form);
  }
  if (absl::string_view name = ApprovalOnTimeoutName(approval.on_timeout()); !name.empty()) {
    out["onTimeout"] = std::string(name);
  }
  if (!approval.approvers().empty()) {
    out["approvers"] =
        Json(std::vector<std::string>(approval.approvers().begin(), approval.approvers().end()));
  }
}

void ValidateApprovalPhase(const v1::Phase& phase, const std::string& path, FlowErrorList* errors) {
  const v1::Approval& approval = phase.approval();
  if (phase.type() != v1::PHASE_TYPE_APPROVAL) {
    if (HasAnyApprovalField(approval)) {
      const char* field = FirstApprovalField(approval);
      errors->Add(JoinPath(path, field),
                  absl::StrCat("`", field, "` only applies to approval phases (`type: approval`)"));
    }
    return;
  }
  if (!phase.task().empty()) {
    errors->Add(JoinPath(path, "task"),
                "an approval phase asks a person with `prompt`, not `task`: rename the field");
  }
  if (approval.prompt().empty()) {
    errors->Add(JoinPath(path, "prompt"),
                "an approval phase needs a `prompt`: what the approver is asked to decide");
  }
  std::set<std::string> choices = {"approve", "reject"};
  for (int i = 0; i < approval.choices_size(); ++i) {
    const std::string& choice = approval.choices(i);
    const std::string choice_path = IndexPath(JoinPath(path, "choices"), i);
    if (choice == "approve" || choice == "reject") {
      errors->Add(choice_path,
                  absl::StrCat("'", choice, "' is always a choice; list only the extra ones"));
      continue;
    }
    CheckName(choice, choice_path, "choice", choices, errors);
  }
  std::set<std::string> fields;
  for (int i = 0; i < approval.form_size(); ++i) {
    const std::string field_path = IndexPath(JoinPath(path, "form"), i);
    if (errors->IsBroken(field_path)) continue;
    CheckName(approval.form(i).name(), JoinPath(field_path, "name"), "form field", fields, errors);
  }
  ValidateApprovers(approval, path, errors);
  if (approval.on_timeout() != v1::APPROVAL_ON_TIMEOUT_UNSPECIFIED &&
      phase.timeout_seconds() <= 0) {
    errors->Add(JoinPath(path, "onTimeout"),
                "onTimeout needs `timeoutSeconds` on the phase: how long to wait for a decision");
  }
}

}  // namespace taskboard::flow
