#include "tools/cli/run_states.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace taskboard::cli {
namespace {

std::string LowerSuffix(const std::string& enum_name, absl::string_view prefix) {
  return absl::AsciiStrToLower(absl::StripPrefix(enum_name, prefix));
}

}  // namespace

std::string RunStatusName(v1::RunStatus status) {
  return LowerSuffix(v1::RunStatus_Name(status), "RUN_STATUS_");
}

std::string TaskStateName(v1::TaskState state) {
  return LowerSuffix(v1::TaskState_Name(state), "TASK_STATE_");
}

std::string RunKindName(v1::FlowKind kind) {
  if (kind == v1::FLOW_KIND_UNSPECIFIED) return "";
  return LowerSuffix(v1::FlowKind_Name(kind), "FLOW_KIND_");
}

std::optional<v1::RunStatus> RunStatusFromName(absl::string_view name) {
  v1::RunStatus status;
  if (name.empty() ||
      !v1::RunStatus_Parse(absl::StrCat("RUN_STATUS_", absl::AsciiStrToUpper(name)), &status) ||
      status == v1::RUN_STATUS_UNSPECIFIED) {
    return std::nullopt;
  }
  return status;
}

bool IsSettled(v1::RunStatus status) {
  return status == v1::RUN_STATUS_COMPLETED || status == v1::RUN_STATUS_FAILED ||
         status == v1::RUN_STATUS_BLOCKED || status == v1::RUN_STATUS_CANCELLED ||
         status == v1::RUN_STATUS_PAUSED || status == v1::RUN_STATUS_TIMED_OUT;
}

bool IsTaskEnded(v1::TaskState state) {
  return state == v1::TASK_STATE_COMPLETED || state == v1::TASK_STATE_FAILED ||
         state == v1::TASK_STATE_SKIPPED || state == v1::TASK_STATE_CANCELLED;
}

int ExitCodeForRun(v1::RunStatus status) { return status == v1::RUN_STATUS_COMPLETED ? 0 : 1; }

absl::string_view TaskStateIcon(v1::TaskState state) {
  switch (state) {
    case v1::TASK_STATE_READY:
    case v1::TASK_STATE_DISPATCHED:
      return "◌";
    case v1::TASK_STATE_RUNNING:
      return "◐";
    case v1::TASK_STATE_RETRYING:
      return "↻";
    case v1::TASK_STATE_COMPLETED:
      return "✓";
    case v1::TASK_STATE_FAILED:
      return "✗";
    case v1::TASK_STATE_SKIPPED:
      return "⊘";
    case v1::TASK_STATE_CANCELLED:
      return "■";
    default:
      return "○";
  }
}

absl::string_view RunStatusIcon(v1::RunStatus status) {
  switch (status) {
    case v1::RUN_STATUS_RUNNING:
      return "◐";
    case v1::RUN_STATUS_COMPLETED:
      return "✓";
    case v1::RUN_STATUS_FAILED:
      return "✗";
    case v1::RUN_STATUS_BLOCKED:
      return kBlockedGateIcon;
    case v1::RUN_STATUS_CANCELLED:
      return "■";
    case v1::RUN_STATUS_PAUSED:
      return "‖";
    case v1::RUN_STATUS_TIMED_OUT:
      return "◷";
    default:
      return "○";
  }
}

}  // namespace taskboard::cli
