#ifndef TASKBOARD_TOOLS_CLI_LIVE_VIEW_H_
#define TASKBOARD_TOOLS_CLI_LIVE_VIEW_H_

// Shows a run while it executes. On a terminal it redraws the rendered frame
// (run_render.h) in place: move up over the previous frame, rewrite each
// line, erase what is left, at most once per `min_redraw_interval` (~10/s)
// however fast snapshots arrive, with a spinner on running rows. Anywhere
// else it prints the header once, then only state-change lines
// (transition_lines.h) so logs and CI stay readable, and the whole final
// frame at the end. Tool calls reported to it (AddToolCall) are counted in
// the frame's header and rows (run_render.h). Transition lines carry no
// counts: the snapshot that says a phase finished may arrive before the
// phase's last observation events, so a count there could be short.
//
// Not thread-safe: one thread (the command's watch loop) calls everything,
// passing `now` so tests drive time.

#include <ostream>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "taskboard/v1/scheduler.pb.h"
#include "tools/cli/terminal.h"
#include "tools/cli/tool_tally.h"
#include "tools/cli/transition_lines.h"

namespace taskboard::cli {

class LiveView {
 public:
  LiveView(std::ostream& out, TerminalInfo terminal,
           absl::Duration min_redraw_interval = absl::Milliseconds(100));

  // A new snapshot of the run. The view keeps a reference, not a copy (a
  // follower keeps a run of 100,000 tasks current in place): Tick and Finish
  // read it again, so keep it alive until the next Update. It may change in
  // between; a terminal shows the change at its next redraw, a log at the
  // next Update. `changed`: the tasks that changed since the previous
  // Update, when known (a log then looks at those only; see TransitionLog).
  void Update(const v1::Run& run, absl::Time now, const ChangedTasks& changed = std::nullopt);
  void Update(v1::Run&& run, absl::Time now, const ChangedTasks& changed = std::nullopt) = delete;

  // New snapshots of the run's child runs (nested patterns), drawn beneath
  // the tasks they carry out.
  void UpdateChildren(absl::flat_hash_map<std::string, v1::Run> children);

  // Lets a terminal view advance the spinner and elapsed times, and draw a
  // snapshot that arrived too soon after the previous frame. Call it often
  // (every ~100ms); it draws only when due.
  void Tick(absl::Time now);

  // A tool call of the run (an `observation` event). The counts show on the
  // next frame (Tick draws it when due; a log shows them in the final frame).
  void AddToolCall(const v1::Observation& observation);

  // A message that is not part of the frame (a warning, a reconnect notice):
  // on a terminal it goes above the frame, which is redrawn below it.
  void Note(const std::string& text, absl::Time now);

  // Shows the final state: the last frame without animation (it stays on the
  // screen), or the last transition lines and the final frame.
  void Finish(absl::Time now);

 private:
  void Draw(absl::Time now, bool animate);

  std::ostream& out_;
  const TerminalInfo terminal_;
  const absl::Duration min_redraw_interval_;
  const v1::Run* run_ = nullptr;  // latest snapshot (not owned)
  absl::flat_hash_map<std::string, v1::Run> children_;
  ToolTally tools_;
  // Terminal mode.
  bool dirty_ = false;  // `run_` changed since the last frame
  absl::Time last_draw_ = absl::InfinitePast();
  int drawn_lines_ = 0;  // height of the frame on screen
  int spinner_frame_ = 0;
  // Log mode.
  TransitionLog announced_;  // what the printed lines described
  bool header_printed_ = false;
};

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_LIVE_VIEW_H_
