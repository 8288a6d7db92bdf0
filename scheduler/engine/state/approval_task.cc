#include "scheduler/engine/state/approval_task.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/state/task_states.h"

namespace taskboard::engine {
namespace {

constexpr size_t kQuotedBytes = 64;

std::string FormatTime(const google::protobuf::Timestamp& ts) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromUnixMillis(ToUnixMs(ts)),
                          absl::UTCTimeZone());
}

// The decision as the task's output: what downstream phases read.
std::string DecisionJson(const v1::ApprovalDecision& decision) {
  Json values = Json::object();
  std::vector<std::string> names;
  for (const auto& [name, value] : decision.values()) names.push_back(name);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) values[name] = decision.values().at(name);
  Json out = {{"decision", decision.decision() == "reject" ? "reject" : "approve"},
              {"choice", decision.decision()},
              {"values", std::move(values)},
              {"comment", decision.comment()},
              {"decided_by", decision.decided_by()}};
  return DumpJson(out);
}

void Complete(store::TaskRecord& task, v1::ApprovalDecision decision, int64_t now_ms) {
  *decision.mutable_decided_at() = ToTimestamp(now_ms);
  v1::TaskResult result;
  result.set_success(true);
  result.set_output(DecisionJson(decision));
  *task.mutable_task()->mutable_approval()->mutable_decision() = std::move(decision);
  ApplyResult(task, result, now_ms, 0);
}

}  // namespace

bool IsApprovalTask(const store::TaskRecord& task) { return task.task().role() == kApprovalRole; }

bool WaitsForApproval(const store::TaskRecord& task) {
  return IsApprovalTask(task) && task.task().state() == v1::TASK_STATE_RUNNING &&
         !task.task().approval().has_decision();
}

void DescribeApproval(store::TaskRecord& task, const v1::Phase& phase, std::string prompt) {
  DescribeApproval(task, phase.approval(),
                   std::vector<std::string>(phase.approval().choices().begin(),
                                            phase.approval().choices().end()),
                   std::move(prompt));
}

void DescribeApproval(store::TaskRecord& task, const v1::Approval& spec,
                      const std::vector<std::string>& choices, std::string prompt) {
  v1::TaskApproval& approval = *task.mutable_task()->mutable_approval();
  approval.set_prompt(std::move(prompt));
  approval.clear_choices();
  for (const std::string& choice : choices) approval.add_choices(choice);
  *approval.mutable_form() = spec.form();
  *approval.mutable_approvers() = spec.approvers();
  approval.set_on_timeout(spec.on_timeout() == v1::APPROVAL_ON_TIMEOUT_UNSPECIFIED
                              ? v1::APPROVAL_ON_TIMEOUT_REJECT
                              : spec.on_timeout());
}

void StartWaiting(store::TaskRecord& task, int64_t timeout_seconds, int64_t now_ms) {
  task.mutable_task()->set_attempt(1);
  task.set_ready_unix_ms(now_ms);
  MarkRunning(task, now_ms);
  v1::TaskApproval& approval = *task.mutable_task()->mutable_approval();
  *approval.mutable_waiting_since() = ToTimestamp(now_ms);
  if (timeout_seconds > 0) {
    *approval.mutable_deadline() = ToTimestamp(now_ms + timeout_seconds * 1000);
  }
}

void AskAgain(store::TaskRecord& task, int64_t now_ms) {
  v1::TaskApproval& approval = *task.mutable_task()->mutable_approval();
  const int64_t timeout_seconds =
      approval.has_deadline()
          ? (ToUnixMs(approval.deadline()) - ToUnixMs(approval.waiting_since())) / 1000
          : 0;
  approval.clear_decision();
  approval.clear_deadline();
  v1::Task& view = *task.mutable_task();
  view.clear_output();
  view.clear_error();
  view.clear_finished_at();
  task.set_finished_unix_ms(0);
  StartWaiting(task, timeout_seconds, now_ms);
}

int64_t ApprovalDeadlineMs(const store::TaskRecord& task) {
  const v1::TaskApproval& approval = task.task().approval();
  return approval.has_deadline() ? ToUnixMs(approval.deadline()) : 0;
}

absl::Status CheckApprover(const store::TaskRecord& task, const Approver& who) {
  const auto& approvers = task.task().approval().approvers();
  if (approvers.empty() || who.unchecked) return absl::OkStatus();
  for (const std::string& approver : approvers) {
    if (approver == who.name || (approver == "role:admin" && who.admin) ||
        (approver == "role:client" && !who.admin)) {
      return absl::OkStatus();
    }
  }
  return absl::PermissionDeniedError(
      absl::StrCat("'", who.name, "' may not decide approval '", task.task().task_id(),
                   "'; its approvers are: ", absl::StrJoin(approvers, ", "), "; ask one of them"));
}

absl::Status Decide(store::TaskRecord& task, const ApprovalAnswer& answer,
                    const std::string& decided_by, int64_t now_ms) {
  const v1::TaskApproval& approval = task.task().approval();
  if (approval.has_decision()) {
    const v1::ApprovalDecision& first = approval.decision();
    return absl::FailedPreconditionError(absl::StrCat(
        "approval '", task.task().task_id(), "' was already decided (", first.decision(), ") by '",
        first.decided_by(), "' at ", FormatTime(first.decided_at()), "; a decision is final"));
  }
  if (!WaitsForApproval(task)) {
    return absl::FailedPreconditionError(
        absl::StrCat("approval '", task.task().task_id(),
                     "' is not waiting for a decision (it has not started, or its run ended)"));
  }
  std::string decision = answer.decision;
  if (decision == "choice") {
    if (std::find(approval.choices().begin(), approval.choices().end(), answer.choice) ==
        approval.choices().end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown choice '", QuotedInError(answer.choice), "'; the flow offers: approve, reject",
          approval.choices().empty() ? "" : ", ", absl::StrJoin(approval.choices(), ", ")));
    }
    decision = answer.choice;
  } else if (decision != "approve" && decision != "reject") {
    return absl::InvalidArgumentError(
        absl::StrCat("decision must be approve, reject or choice (with a choice name), got '",
                     QuotedInError(decision), "'"));
  }
  if (!answer.edited_plan.empty() && decision != "approve") {
    return absl::InvalidArgumentError(absl::StrCat(
        "an edited plan goes with approve (got ", decision, "); approve with it, or leave it out"));
  }
  std::vector<std::string> missing;
  std::vector<std::string> unknown;
  for (const v1::ApprovalField& field : approval.form()) {
    auto value = answer.values.find(field.name());
    if (field.required() && decision != "reject" &&
        (value == answer.values.end() || value->second.empty())) {
      missing.push_back(field.name());
    }
  }
  for (const auto& entry : answer.values) {
    const std::string& name = entry.first;
    if (std::none_of(approval.form().begin(), approval.form().end(),
                     [&](const v1::ApprovalField& field) { return field.name() == name; })) {
      unknown.push_back(QuotedInError(name));
    }
  }
  if (!missing.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("required form values missing: ", absl::StrJoin(missing, ", "),
                     "; give them with --set NAME=VALUE"));
  }
  if (!unknown.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown form fields: ", absl::StrJoin(unknown, ", "), "; the form has: ",
        absl::StrJoin(approval.form(), ", ", [](std::string* out, const v1::ApprovalField& field) {
          out->append(field.name());
        })));
  }
  v1::ApprovalDecision made;
  made.set_decision(decision);
  for (const auto& [name, value] : answer.values) (*made.mutable_values())[name] = value;
  made.set_comment(answer.comment);
  made.set_decided_by(decided_by);
  made.set_edited_plan(answer.edited_plan);
  Complete(task, std::move(made), now_ms);
  return absl::OkStatus();
}

void DecideOnTimeout(store::TaskRecord& task, int64_t now_ms) {
  const v1::TaskApproval& approval = task.task().approval();
  const int64_t waited_s = (now_ms - ToUnixMs(approval.waiting_since())) / 1000;
  const std::string why =
      absl::StrCat("no decision within the approval's timeout (", waited_s, "s, timeoutSeconds)");
  if (approval.on_timeout() == v1::APPROVAL_ON_TIMEOUT_FAIL) {
    FailTask(task, why, now_ms);
    return;
  }
  v1::ApprovalDecision made;
  made.set_decision(approval.on_timeout() == v1::APPROVAL_ON_TIMEOUT_APPROVE ? "approve"
                                                                             : "reject");
  made.set_comment(why);
  made.set_decided_by("timeout");
  Complete(task, std::move(made), now_ms);
}

bool IsRejected(const store::TaskRecord& task) {
  return task.task().approval().decision().decision() == "reject";
}

std::string RejectionReason(const store::TaskRecord& task) {
  const v1::ApprovalDecision& decision = task.task().approval().decision();
  return absl::StrCat("rejected by ", decision.decided_by(), decision.comment().empty() ? "" : ": ",
                      decision.comment());
}

std::string RejectionReference(const store::TaskRecord& task) {
  return absl::StrCat("rejected by ", task.task().approval().decision().decided_by(),
                      " (see its decision)");
}

std::string QuotedInError(absl::string_view text) {
  if (text.size() <= kQuotedBytes) return std::string(text);
  size_t end = kQuotedBytes;
  // Back to the start of a character: UTF-8 continuation bytes are 10xxxxxx.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return absl::StrCat(text.substr(0, end), "…");
}

}  // namespace taskboard::engine
