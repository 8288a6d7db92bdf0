#include "scheduler/engine/approvals/approval_limits.h"

#include "absl/strings/str_cat.h"
#include "scheduler/flow/approval_phase.h"
#include "scheduler/flow/json_reader.h"

namespace taskboard::engine {
namespace {

absl::Status OverLimit(absl::string_view what, size_t size, int64_t limit, absl::string_view flag,
                       absl::string_view remedy) {
  return absl::InvalidArgumentError(absl::StrCat(what, " is ", size,
                                                 " bytes, over the scheduler's limit of ", limit,
                                                 " bytes (scheduler flag ", flag, "); ", remedy));
}

}  // namespace

absl::Status CheckApprovalAnswer(const ApprovalAnswer& answer, const ApprovalLimits& limits) {
  if (static_cast<int64_t>(answer.comment.size()) > limits.max_comment_bytes) {
    return OverLimit("the approval's comment", answer.comment.size(), limits.max_comment_bytes,
                     approval_limit_flags::kMaxCommentBytes,
                     "shorten it, or link to the long text (a ticket, a document)");
  }
  if (static_cast<int64_t>(answer.values.size()) > limits.max_form_fields) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the decision gives ", answer.values.size(), " form values, over the scheduler's limit of ",
        limits.max_form_fields, " form fields per approval (scheduler flag ",
        approval_limit_flags::kMaxFormFields, "); give only the fields the approval's form has"));
  }
  for (const auto& [name, value] : answer.values) {
    if (static_cast<int64_t>(value.size()) > limits.max_form_value_bytes) {
      return OverLimit(absl::StrCat("form value '", QuotedInError(name), "'"), value.size(),
                       limits.max_form_value_bytes, approval_limit_flags::kMaxFormValueBytes,
                       "shorten it, or link to the long text");
    }
  }
  return absl::OkStatus();
}

void CheckApprovalForms(const v1::FlowSpec& spec, const ApprovalLimits& limits,
                        flow::FlowErrorList& errors) {
  if (!spec.has_taskflow()) return;
  for (int i = 0; i < spec.taskflow().phases_size(); ++i) {
    const v1::Phase& phase = spec.taskflow().phases(i);
    if (!phase.has_approval() || phase.approval().form_size() <= limits.max_form_fields) continue;
    const std::string path =
        flow::JoinPath(flow::ApprovalFieldsPath(phase, flow::IndexPath("phases", i)), "form");
    errors.Add(path, absl::StrCat("the form has ", phase.approval().form_size(),
                                  " fields, over the scheduler's limit of ", limits.max_form_fields,
                                  " per approval (scheduler flag ",
                                  approval_limit_flags::kMaxFormFields, ")"));
  }
}

}  // namespace taskboard::engine
