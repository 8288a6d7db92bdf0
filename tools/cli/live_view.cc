#include "tools/cli/live_view.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tools/cli/ansi.h"
#include "tools/cli/run_render.h"
#include "tools/cli/run_states.h"
#include "tools/cli/transition_lines.h"

namespace taskboard::cli {

LiveView::LiveView(std::ostream& out, TerminalInfo terminal, absl::Duration min_redraw_interval)
    : out_(out), terminal_(terminal), min_redraw_interval_(min_redraw_interval) {}

void LiveView::Update(const v1::Run& run, absl::Time now, const ChangedTasks& changed) {
  run_ = &run;
  if (terminal_.tty) {
    dirty_ = true;
    Tick(now);
    return;
  }
  // One write for all the lines: standard error is unbuffered, and a 100,000
  // task board announces twice as many.
  std::string text;
  if (!header_printed_) {
    absl::StrAppend(&text, RenderRunHeader(run, now), "\n");
    header_printed_ = true;
  }
  for (const std::string& line : announced_.Lines(run, now, changed)) {
    absl::StrAppend(&text, line, "\n");
  }
  out_ << text;
  out_.flush();
}

void LiveView::AddToolCall(const v1::Observation& observation) {
  tools_.Add(observation);
  if (terminal_.tty) dirty_ = true;
}

void LiveView::Tick(absl::Time now) {
  if (!terminal_.tty || run_ == nullptr) return;
  // A running run redraws even without news: its spinner and clocks move.
  const bool animating = run_->status() == v1::RUN_STATUS_RUNNING;
  if ((dirty_ || animating) && now - last_draw_ >= min_redraw_interval_) Draw(now, true);
}

void LiveView::Note(const std::string& text, absl::Time now) {
  if (terminal_.tty && drawn_lines_ > 0) {
    out_ << CursorUpLines(drawn_lines_) << kEraseBelow;
    drawn_lines_ = 0;
    dirty_ = true;
  }
  out_ << text << "\n";
  out_.flush();
  if (terminal_.tty) Tick(now);
}

void LiveView::UpdateChildren(absl::flat_hash_map<std::string, v1::Run> children) {
  children_ = std::move(children);
  dirty_ = true;
}

void LiveView::Finish(absl::Time now) {
  if (run_ == nullptr) return;
  if (terminal_.tty) {
    Draw(now, false);
    return;
  }
  // A log keeps whole lines and no colours, whatever the terminal settings.
  RenderOptions options;
  options.tools = &tools_;
  options.children = &children_;
  out_ << "\n" << RenderRun(*run_, now, options);
  out_.flush();
}

void LiveView::Draw(absl::Time now, bool animate) {
  RenderOptions options;
  options.color = terminal_.color;
  options.width = terminal_.width;
  options.spinner_frame = animate ? spinner_frame_++ : -1;
  options.tools = &tools_;
  options.children = &children_;
  std::vector<std::string> lines =
      absl::StrSplit(RenderRun(*run_, now, options), '\n', absl::SkipEmpty());
  // A frame taller than the screen cannot be redrawn in place (the cursor
  // cannot move above the top row): keep what fits and say what is hidden.
  if (terminal_.height > 1 && static_cast<int>(lines.size()) > terminal_.height - 1) {
    const int keep = terminal_.height - 2;
    const int hidden = static_cast<int>(lines.size()) - keep;
    lines.resize(keep);
    lines.push_back(absl::StrCat("  … ", hidden, " more rows"));
  }
  std::string text = CursorUpLines(drawn_lines_);
  for (const std::string& line : lines) absl::StrAppend(&text, kEraseLine, line, "\n");
  absl::StrAppend(&text, kEraseBelow);
  out_ << text;
  out_.flush();
  drawn_lines_ = static_cast<int>(lines.size());
  last_draw_ = now;
  dirty_ = false;
}

}  // namespace taskboard::cli
