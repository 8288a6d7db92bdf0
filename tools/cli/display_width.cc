#include "tools/cli/display_width.h"

#include <cstdint>

#include "absl/strings/str_cat.h"

namespace taskboard::cli {
namespace {

// One unit of text as the terminal sees it: an escape sequence, a code point
// or a stray byte.
struct Unit {
  size_t bytes;
  int columns;
  bool escape;
};

bool IsWide(uint32_t cp) {
  return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF && cp != 0x303F) ||
         (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
         (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
         (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1FAFF) ||
         (cp >= 0x20000 && cp <= 0x3FFFD) ||
         // The emoji-presentation symbols of the Miscellaneous Symbols block
         // that the run view can show (⛔ is the blocked-gate icon).
         cp == 0x26D4 || cp == 0x26A1 || cp == 0x2705 || cp == 0x274C || cp == 0x231B ||
         cp == 0x23F3;
}

bool IsCombining(uint32_t cp) {
  return (cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) ||
         (cp >= 0xFE00 && cp <= 0xFE0F);
}

Unit NextUnit(absl::string_view text, size_t pos) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t lead = byte(pos);
  if (lead == 0x1b && pos + 1 < text.size() && text[pos + 1] == '[') {
    // CSI: ESC [ parameters... final byte in 0x40-0x7E.
    size_t end = pos + 2;
    while (end < text.size() && (byte(end) < 0x40 || byte(end) > 0x7e)) ++end;
    return {std::min(end + 1, text.size()) - pos, 0, true};
  }
  size_t length = lead < 0x80           ? 1
                  : (lead >> 5) == 0x6  ? 2
                  : (lead >> 4) == 0xe  ? 3
                  : (lead >> 3) == 0x1e ? 4
                                        : 0;
  if (length == 0 || pos + length > text.size()) return {1, 1, false};
  uint32_t cp = length == 1 ? lead : lead & (0x7f >> length);
  for (size_t i = 1; i < length; ++i) {
    if ((byte(pos + i) & 0xc0) != 0x80) return {1, 1, false};
    cp = (cp << 6) | (byte(pos + i) & 0x3f);
  }
  if (cp < 0x20) return {length, 0, false};
  return {length, IsCombining(cp) ? 0 : IsWide(cp) ? 2 : 1, false};
}

}  // namespace

int DisplayWidth(absl::string_view text) {
  int width = 0;
  for (size_t pos = 0; pos < text.size();) {
    const Unit unit = NextUnit(text, pos);
    width += unit.columns;
    pos += unit.bytes;
  }
  return width;
}

std::string FitToWidth(absl::string_view text, int width) {
  if (width <= 0 || DisplayWidth(text) <= width) return std::string(text);
  // Keep whole units while they fit in width - 1 columns, leaving one for "…".
  std::string result;
  bool styled = false;
  int used = 0;
  for (size_t pos = 0; pos < text.size();) {
    const Unit unit = NextUnit(text, pos);
    if (unit.escape) {
      result.append(text.data() + pos, unit.bytes);
      styled = true;
    } else if (used + unit.columns <= width - 1) {
      result.append(text.data() + pos, unit.bytes);
      used += unit.columns;
    } else {
      break;
    }
    pos += unit.bytes;
  }
  absl::StrAppend(&result, "…", styled ? "\x1b[0m" : "");
  return result;
}

std::string PadToWidth(absl::string_view text, int width) {
  std::string result(text);
  result.append(std::max(0, width - DisplayWidth(text)), ' ');
  return result;
}

}  // namespace taskboard::cli
