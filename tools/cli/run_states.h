#ifndef TASKBOARD_TOOLS_CLI_RUN_STATES_H_
#define TASKBOARD_TOOLS_CLI_RUN_STATES_H_

// How the CLI names and draws run statuses and task states. Names come from
// the proto enums (RUN_STATUS_COMPLETED -> "completed"), so a state added to
// the API shows up without a table to update here.

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "taskboard/v1/common.pb.h"

namespace taskboard::cli {

// "completed", "running", ...; "unspecified" for 0.
std::string RunStatusName(v1::RunStatus status);
std::string TaskStateName(v1::TaskState state);

// taskflow | plan_and_execute | supervisor | board; "" for UNSPECIFIED.
std::string RunKindName(v1::FlowKind kind);

// The inverse of RunStatusName, case-insensitive; nullopt for an unknown name.
std::optional<v1::RunStatus> RunStatusFromName(absl::string_view name);

// Nothing more happens to the run without a user's action: completed,
// failed, blocked, cancelled, timed_out, and paused (waiting for `taskboard
// resume`).
bool IsSettled(v1::RunStatus status);

// The task or phase is over: completed, failed, skipped or cancelled (what
// the scheduler counts in a run's tasks_done).
bool IsTaskEnded(v1::TaskState state);

// The exit code of a command that followed a run to its end: 0 only when it
// completed.
int ExitCodeForRun(v1::RunStatus status);

// Single-column glyphs (pi-taskflow's set, plus ⛔, which is two columns wide):
// pending ○, ready/dispatched ◌, running ◐, retrying ↻, done ✓, failed ✗,
// skipped ⊘, cancelled ■.
absl::string_view TaskStateIcon(v1::TaskState state);
// pending ○, running ◐, completed ✓, failed ✗, blocked ⛔, cancelled ■, paused ‖.
absl::string_view RunStatusIcon(v1::RunStatus status);

inline constexpr absl::string_view kBlockedGateIcon = "⛔";

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_RUN_STATES_H_
