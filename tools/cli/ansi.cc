#include "tools/cli/ansi.h"

#include "absl/strings/str_cat.h"

namespace taskboard::cli {
namespace {

absl::string_view StyleCode(Style style) {
  switch (style) {
    case Style::kBold:
      return "1";
    case Style::kDim:
      return "2";
    case Style::kRed:
      return "31";
    case Style::kGreen:
      return "32";
    case Style::kYellow:
      return "33";
    case Style::kCyan:
      return "36";
  }
  return "0";
}

}  // namespace

std::string Paint(absl::string_view text, Style style, bool enabled) {
  if (!enabled || text.empty()) return std::string(text);
  return absl::StrCat("\x1b[", StyleCode(style), "m", text, "\x1b[0m");
}

std::string CursorUpLines(int lines) {
  // CPL (cursor previous line) also returns to column 0, which a plain "up"
  // would not after a partial write.
  return lines > 0 ? absl::StrCat("\x1b[", lines, "F") : "";
}

}  // namespace taskboard::cli
