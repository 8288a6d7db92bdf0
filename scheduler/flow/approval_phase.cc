#include "scheduler/flow/approval_phase.h"

#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
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

// Reads the string or list of strings of DSL `onReject`.
void DecodeOnReject(JsonReader& reader, v1::Approval* approval, FlowErrorList* errors) {
  const Json* value = reader.Raw("onReject");
  if (value == nullptr || value->is_null()) return;
  const std::string path = reader.FieldPath("onReject");
  if (value->is_string()) {
    approval->add_on_reject(value->get<std::string>());
    return;
  }
  if (!value->is_array()) {
    errors->Add(path, absl::StrCat("must be a phase id or a list of phase ids (got ",
                                   DescribeJsonType(*value), ")"));
    return;
  }
  for (size_t i = 0; i < value->size(); ++i) {
    const Json& id = (*value)[i];
    if (!id.is_string()) {
      errors->Add(IndexPath(path, i),
                  absl::StrCat("must be a phase id (got ", DescribeJsonType(id), ")"));
      continue;
    }
    approval->add_on_reject(id.get<std::string>());
  }
}

// The approval fields `reader` has (on an approval phase itself, or in a
// gate's `approval:` block).
v1::Approval ReadApproval(JsonReader& reader, FlowErrorList* errors) {
  v1::Approval approval;
  approval.set_prompt(reader.String("prompt").value_or(""));
  for (std::string& choice : reader.StringList("choices")) approval.add_choices(std::move(choice));
  if (const Json* form = reader.Raw("form"); form != nullptr && !form->is_null()) {
    DecodeForm(*form, reader.FieldPath("form"), &approval, errors);
  }
  DecodeOnTimeoutAndApprovers(reader, &approval, errors);
  DecodeOnReject(reader, &approval, errors);
  return approval;
}

// The DSL names of the fields `approval` sets, for errors.
std::vector<const char*> SetApprovalFields(const v1::Approval& approval) {
  std::vector<const char*> set;
  if (!approval.prompt().empty()) set.push_back("prompt");
  if (!approval.choices().empty()) set.push_back("choices");
  if (!approval.form().empty()) set.push_back("form");
  if (approval.on_timeout() != v1::APPROVAL_ON_TIMEOUT_UNSPECIFIED) set.push_back("onTimeout");
  if (!approval.approvers().empty()) set.push_back("approvers");
  if (!approval.on_reject().empty()) set.push_back("onReject");
  return set;
}

// DSL `approval: true | {...}` on a gate phase; nullopt when absent (or
// `false`).
std::optional<v1::Approval> ReadApprovalBlock(JsonReader& reader, FlowErrorList* errors) {
  const Json* value = reader.Raw("approval");
  if (value == nullptr || value->is_null()) return std::nullopt;
  const std::string path = reader.FieldPath("approval");
  if (value->is_boolean()) {
    if (!value->get<bool>()) return std::nullopt;
    return v1::Approval();
  }
  if (!value->is_object()) {
    errors->Add(path, absl::StrCat("must be true or {prompt?, approvers?, choices?, form?, "
                                   "onTimeout?, onReject?} (got ",
                                   DescribeJsonType(*value), ")"));
    return std::nullopt;
  }
  JsonReader block(*value, path, errors);
  v1::Approval approval = ReadApproval(block, errors);
  block.RejectUnknownFields();
  return approval;
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
  v1::Approval on_phase = ReadApproval(reader, errors);
  std::optional<v1::Approval> block = ReadApprovalBlock(reader, errors);
  if (phase->type() == v1::PHASE_TYPE_APPROVAL) {
    if (block.has_value()) {
      errors->Add(reader.FieldPath("approval"),
                  "an approval phase writes its fields (prompt, approvers, choices, form, "
                  "onTimeout, onReject) on the phase itself: remove the `approval:` wrapper");
    }
    *phase->mutable_approval() = std::move(on_phase);
    return;
  }
  // Elsewhere these names are approval fields only inside a gate's block.
  for (const char* field : SetApprovalFields(on_phase)) {
    errors->Add(reader.FieldPath(field),
                absl::StrCat("`", field, "` only applies to approval phases (`type: approval`)",
                             phase->type() == v1::PHASE_TYPE_GATE
                                 ? "; on a gate, put it in its `approval:` block"
                                 : ""));
  }
  if (block.has_value()) *phase->mutable_approval() = *std::move(block);
}

namespace {

void EncodeApproval(const v1::Approval& approval, Json& out) {
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
  if (!approval.on_reject().empty()) {
    out["onReject"] =
        Json(std::vector<std::string>(approval.on_reject().begin(), approval.on_reject().end()));
  }
}

}  // namespace

void EncodeApprovalFields(const v1::Phase& phase, Json& out) {
  if (!phase.has_approval()) return;
  if (phase.type() == v1::PHASE_TYPE_APPROVAL) return EncodeApproval(phase.approval(), out);
  // A gate's block; all defaults is `approval: true`.
  Json block = Json::object();
  EncodeApproval(phase.approval(), block);
  out["approval"] = block.empty() ? Json(true) : std::move(block);
}

void ValidateApprovalPhase(const v1::Phase& phase, const std::string& path, FlowErrorList* errors) {
  const v1::Approval& approval = phase.approval();
  const bool gate = phase.type() == v1::PHASE_TYPE_GATE;
  if (phase.type() != v1::PHASE_TYPE_APPROVAL) {
    if (phase.has_approval() && !gate) {
      errors->Add(JoinPath(path, "approval"),
                  "`approval` only applies to gate phases (a person gives the verdict) and "
                  "approval phases (`type: approval`)");
    }
    if (!phase.has_approval() || !gate) return;
  }
  // A gate's approval fields are in its `approval:` block.
  const std::string at = gate ? JoinPath(path, "approval") : path;
  // A person decides, so what would choose and steer an agent is a mistake
  // (it was accepted and ignored): say so rather than run without it.
  const absl::string_view decided = gate ? "a gate with `approval` is decided by a person"
                                         : "an approval phase is decided by a person";
  const std::pair<absl::string_view, bool> agent_fields[] = {
      {"agent", !phase.agent().empty()},
      {"model", !phase.model().empty()},
      {"thinking", !phase.thinking().empty()},
      {"tools", !phase.tools().empty()},
  };
  for (const auto& [field, set] : agent_fields) {
    if (set) {
      errors->Add(JoinPath(path, field),
                  absl::StrCat(decided, ", not an agent: `", field, "` does not apply; remove it"));
    }
  }
  if (!gate) {
    if (!phase.task().empty()) {
      errors->Add(JoinPath(path, "task"),
                  "an approval phase asks a person with `prompt`, not `task`: rename the field");
    }
    if (approval.prompt().empty()) {
      errors->Add(JoinPath(path, "prompt"),
                  "an approval phase needs a `prompt`: what the approver is asked to decide");
    }
  }
  std::set<std::string> choices = {"approve", "reject"};
  for (int i = 0; i < approval.choices_size(); ++i) {
    const std::string& choice = approval.choices(i);
    const std::string choice_path = IndexPath(JoinPath(at, "choices"), i);
    if (choice == "approve" || choice == "reject") {
      errors->Add(choice_path,
                  absl::StrCat("'", choice, "' is always a choice; list only the extra ones"));
      continue;
    }
    CheckName(choice, choice_path, "choice", choices, errors);
  }
  std::set<std::string> fields;
  for (int i = 0; i < approval.form_size(); ++i) {
    const std::string field_path = IndexPath(JoinPath(at, "form"), i);
    if (errors->IsBroken(field_path)) continue;
    CheckName(approval.form(i).name(), JoinPath(field_path, "name"), "form field", fields, errors);
  }
  ValidateApprovers(approval, at, errors);
  if (approval.on_timeout() != v1::APPROVAL_ON_TIMEOUT_UNSPECIFIED &&
      phase.timeout_seconds() <= 0) {
    errors->Add(JoinPath(at, "onTimeout"),
                "onTimeout needs `timeoutSeconds` on the phase: how long to wait for a decision");
  }
}

std::string ApprovalFieldsPath(const v1::Phase& phase, const std::string& path) {
  return phase.type() == v1::PHASE_TYPE_GATE ? JoinPath(path, "approval") : path;
}

const std::string& ApprovalPromptTemplate(const v1::Phase& phase) {
  return phase.approval().prompt().empty() ? phase.task() : phase.approval().prompt();
}

}  // namespace taskboard::flow
