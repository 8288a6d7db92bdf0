#ifndef TASKBOARD_TOOLS_CLI_RUN_RENDER_H_
#define TASKBOARD_TOOLS_CLI_RUN_RENDER_H_

// The live view of a run, in pi-taskflow's style: a header line, then one row
// per phase (taskflow) or task (board, plan-and-execute, supervisor), grouped
// by DAG layer with rails, so the layout is the DAG:
//
//   ◐ taskflow audit  2/6 phases · running · ↑9.4k ↓2.3k $0.013 · 1m05s · run r-7
//     ┌ ✓  discover  agent   scout     12.3s  ↑1.2k ↓310 $0.0021
//     └ ✗  precheck  agent   linter    2.0s  failed: exit status 3: config not found
//     ┌ ◐  files     map     auditor   [███░░░░░░░] 12/40 · 1 failed  51.0s
//     ├ ✓  policy    gate    reviewer  3.1s  PASS: no secrets found
//     └ ⊘  lint      agent   linter    skipped: upstream phase 'precheck' failed
//       ○  report    reduce  writer    ↳ discover
//
// Given the tool calls seen so far (tool_tally.h), the header adds
// `tools 41 · cached 39` and each row with calls `tools 12 (11 cached)`.
//
// Pattern runs show their structure: each planned task's goal and status,
// the last review verdict of a supervisor's task (`round 2: accepted 0.90`,
// `needs-revision: add an example`), the iteration in the header, and, for
// a task carried out by a child run whose snapshot is given, the child's
// own header and rows nested beneath it:
//
//   ◐ plan_and_execute migrate  1/2 tasks · running (active, iteration 1) · run r-1
//     ┌ ✓  storage  step  12.3s  Migrate storage
//     │    ↳ ✓ supervisor migrate/storage  3/3 tasks · completed · run r-2
//     │        ✓  edit  worker  coder  4.1s  accepted 0.90  Edit the files
//
// A taskflow's pattern phases (`type: plan` / `type: supervise`, a map with a
// `plan` / `supervise` block) nest their child runs the same way beneath the
// phase's row, a map's one per item in item order.
//
// Pure: the same run, `now` and options always give the same text, which the
// tests compare exactly. The terminal driver (live_view.h) decides when to draw.

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "taskboard/v1/scheduler.pb.h"
#include "tools/cli/tool_tally.h"

namespace taskboard::cli {

struct RenderOptions {
  bool color = false;
  // Lines are cut to this many columns (a wrapped line would break an
  // in-place redraw); 0 = no limit.
  int width = 0;
  // >= 0: running rows and a running header show this frame of a braille
  // spinner instead of the static ◐.
  int spinner_frame = -1;
  // The run's tool calls, counted from its events by whoever follows it (not
  // owned); null: no tool counts (a snapshot alone has none).
  const ToolTally* tools = nullptr;
  // Snapshots of child runs by run id (not owned); a task carried out by one
  // of them gets its rows beneath it. Null or missing: the task row names
  // the child run instead.
  const absl::flat_hash_map<std::string, v1::Run>* children = nullptr;
};

// The whole frame; every line ends with '\n'.
std::string RenderRun(const v1::Run& run, absl::Time now, const RenderOptions& options = {});

// The header line alone (no newline): flow kind and name, done/total phases
// (tasks for the other kinds), status, total usage and cost, elapsed time,
// tool calls and cache hits (when there were calls), run id.
std::string RenderRunHeader(const v1::Run& run, absl::Time now, const RenderOptions& options = {});

// Whether the run's kind is drawn by phases (FlowKindInfo::has_phases: a
// taskflow); the other kinds are drawn by tasks (a board's phases, one per
// task, would only repeat them).
bool DrawnByPhases(const v1::Run& run);

// "3/5 phases" for a taskflow (phases completed), "7/9 tasks" for the other
// kinds; shared by the header and `taskboard runs`.
std::string RunProgress(const v1::Run& run);

// The state icon of a phase: TaskStateIcon, or ⛔ for a gate that blocked.
absl::string_view PhaseIcon(const v1::PhaseStatus& phase);

// How a phase or task ended, for the end of its row and for transition lines:
// "PASS: reason" / "BLOCK: reason" for gates, "skipped: reason",
// "failed: error" (a phase shows its first failed task's error), "reused"
// after a resume; "" otherwise. Always one line. `tasks`: the phase's tasks
// (TasksByPhase).
std::string PhaseOutcome(const v1::PhaseStatus& phase, absl::Span<const v1::Task* const> tasks);
std::string TaskOutcome(const v1::Task& task);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_RUN_RENDER_H_
