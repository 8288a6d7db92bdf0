#ifndef TASKBOARD_COMMON_LOWER_HEX_H_
#define TASKBOARD_COMMON_LOWER_HEX_H_

// Lowercase hexadecimal, the only spelling some inputs may use: W3C trace
// context's ids and flags (HEXDIGLC) and the tokens file's SHA-256 hashes.
// Uppercase digits are refused, not folded, so one value has one spelling.

#include "absl/strings/string_view.h"

namespace taskboard {

// 0-15 for '0'-'9' and 'a'-'f'; -1 for any other character.
inline int LowerHexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Whether every character of `text` is a lowercase hex digit (true for "").
inline bool IsLowerHex(absl::string_view text) {
  for (char c : text) {
    if (LowerHexValue(c) < 0) return false;
  }
  return true;
}

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_LOWER_HEX_H_
