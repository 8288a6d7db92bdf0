#include "common/utf8.h"

#include <cstdint>

namespace taskboard {

std::optional<size_t> FindInvalidUtf8(absl::string_view text) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  const size_t size = text.size();
  size_t i = 0;
  while (i < size) {
    const uint8_t lead = bytes[i];
    if (lead < 0x80) {
      ++i;
      continue;
    }
    size_t length;
    uint32_t min;  // smallest code point of this length (rejects overlong forms)
    uint32_t code;
    if ((lead & 0xE0) == 0xC0) {
      length = 2, min = 0x80, code = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3, min = 0x800, code = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4, min = 0x10000, code = lead & 0x07;
    } else {
      return i;
    }
    if (i + length > size) return i;
    for (size_t k = 1; k < length; ++k) {
      if ((bytes[i + k] & 0xC0) != 0x80) return i;
      code = (code << 6) | (bytes[i + k] & 0x3F);
    }
    if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return i;
    i += length;
  }
  return std::nullopt;
}

std::string ToValidUtf8(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (std::optional<size_t> bad = FindInvalidUtf8(text)) {
    out.append(text.data(), *bad);
    out.append("\xEF\xBF\xBD");  // U+FFFD REPLACEMENT CHARACTER
    text.remove_prefix(*bad + 1);
  }
  out.append(text.data(), text.size());
  return out;
}

}  // namespace taskboard
