#ifndef TASKBOARD_TOOLS_CLI_ANSI_H_
#define TASKBOARD_TOOLS_CLI_ANSI_H_

// ANSI terminal escapes: colours for the run view and the cursor movements the
// live view needs to redraw a frame in place. Every colour goes through
// Paint(..., enabled) so NO_COLOR and non-terminal output stay plain text.

#include <string>

#include "absl/strings/string_view.h"

namespace taskboard::cli {

enum class Style { kBold, kDim, kRed, kGreen, kYellow, kCyan };

// `text` wrapped in the style's SGR sequence and a reset; `text` unchanged when
// `enabled` is false or `text` is empty.
std::string Paint(absl::string_view text, Style style, bool enabled);

// Moves the cursor to the start of the line `lines` lines up ("" for 0).
std::string CursorUpLines(int lines);

// Erases the whole current line / everything from the cursor to the end of the screen.
inline constexpr absl::string_view kEraseLine = "\x1b[2K";
inline constexpr absl::string_view kEraseBelow = "\x1b[J";

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_ANSI_H_
