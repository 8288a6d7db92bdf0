#ifndef TASKBOARD_TOOLS_CLI_DISPLAY_WIDTH_H_
#define TASKBOARD_TOOLS_CLI_DISPLAY_WIDTH_H_

// Text measured in terminal columns rather than bytes: the run view pads
// columns holding UTF-8 glyphs (rails, icons, progress bars) and cuts lines to
// the terminal width, because a line that wraps breaks the live view's
// "move up N lines" redraw.

#include <string>

#include "absl/strings/string_view.h"

namespace taskboard::cli {

// Columns `text` occupies: ANSI escape sequences take none, East Asian wide
// characters and emoji (such as ⛔) take two, combining marks none, every
// other code point (or invalid byte) one.
int DisplayWidth(absl::string_view text);

// `text` cut to at most `width` columns, ending in "…" when something was cut;
// escape sequences are kept and a reset is appended after a cut so a colour
// never leaks into the next line. `width` <= 0 means no limit.
std::string FitToWidth(absl::string_view text, int width);

// `text` followed by spaces up to `width` columns (unchanged when wider).
std::string PadToWidth(absl::string_view text, int width);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_DISPLAY_WIDTH_H_
