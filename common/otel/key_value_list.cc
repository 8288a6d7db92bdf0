#include "common/otel/key_value_list.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace taskboard::otel {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

absl::StatusOr<std::string> PercentDecode(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    const bool room = i + 2 < text.size();
    const int high = room ? HexValue(text[i + 1]) : -1;
    const int low = room ? HexValue(text[i + 2]) : -1;
    if (high < 0 || low < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("'%' not followed by two hex digits at offset ", i));
    }
    out.push_back(static_cast<char>(high << 4 | low));
    i += 2;
  }
  return out;
}

absl::StatusOr<KeyValueList> ParseKeyValueList(absl::string_view text) {
  KeyValueList list;
  for (absl::string_view member : absl::StrSplit(text, ',')) {
    member = absl::StripAsciiWhitespace(member);
    if (member.empty()) continue;
    const size_t equals = member.find('=');
    if (equals == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("'", member, "' has no '='"));
    }
    const absl::string_view key = absl::StripAsciiWhitespace(member.substr(0, equals));
    if (key.empty()) return absl::InvalidArgumentError(absl::StrCat("'", member, "' has no key"));
    absl::StatusOr<std::string> key_text = PercentDecode(key);
    absl::StatusOr<std::string> value =
        PercentDecode(absl::StripAsciiWhitespace(member.substr(equals + 1)));
    if (!key_text.ok() || !value.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", member, "': ", (!key_text.ok() ? key_text : value).status().message()));
    }
    list.emplace_back(*std::move(key_text), *std::move(value));
  }
  return list;
}

}  // namespace taskboard::otel
