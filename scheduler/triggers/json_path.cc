#include "scheduler/triggers/json_path.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace taskboard::triggers {
namespace {

// A path is at most this long (and has at most this many steps): trigger
// files are small and so are the paths people write.
constexpr size_t kMaxPathBytes = 512;

absl::Status Bad(absl::string_view text, size_t at, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("JSON path '", text, "' at offset ", at, ": ", what,
                   " (write it like $.pull_request.number, $.commits[0].id or $['x-y'])"));
}

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
         static_cast<unsigned char>(c) >= 0x80;
}

}  // namespace

bool LooksLikeJsonPath(absl::string_view text) {
  return text == "$" || absl::StartsWith(text, "$.") || absl::StartsWith(text, "$[");
}

absl::StatusOr<JsonPath> JsonPath::Parse(absl::string_view text) {
  if (text.size() > kMaxPathBytes) {
    return Bad(text.substr(0, 32), 0, absl::StrCat("longer than ", kMaxPathBytes, " bytes"));
  }
  if (!absl::StartsWith(text, "$")) return Bad(text, 0, "a path starts with $");
  JsonPath path;
  path.text_ = std::string(text);
  size_t i = 1;
  while (i < text.size()) {
    if (text[i] == '.') {
      size_t end = i + 1;
      while (end < text.size() && IsNameChar(text[end])) ++end;
      if (end == i + 1) {
        return Bad(text, i + 1,
                   end < text.size() && text[end] == '*' ? "wildcards select many values; name one"
                                                         : "expected a member name after '.'");
      }
      path.steps_.emplace_back(std::string(text.substr(i + 1, end - i - 1)));
      i = end;
    } else if (text[i] == '[') {
      const size_t close = text.find(']', i);
      if (close == absl::string_view::npos) return Bad(text, i, "'[' is not closed");
      absl::string_view inside = text.substr(i + 1, close - i - 1);
      if (inside.size() >= 2 && (inside.front() == '\'' || inside.front() == '"') &&
          inside.back() == inside.front()) {
        absl::string_view name = inside.substr(1, inside.size() - 2);
        if (name.find_first_of("'\"\\") != absl::string_view::npos) {
          return Bad(text, i, "quotes and backslashes inside a quoted name are not supported");
        }
        path.steps_.emplace_back(std::string(name));
      } else {
        size_t index = 0;
        if (inside.empty() || !absl::ascii_isdigit(static_cast<unsigned char>(inside[0])) ||
            !absl::SimpleAtoi(inside, &index)) {
          return Bad(text, i + 1,
                     "a bracket holds an index (0, 1, ...) or a quoted name; wildcards, slices "
                     "and filters select many values");
        }
        path.steps_.emplace_back(index);
      }
      i = close + 1;
    } else {
      return Bad(text, i, absl::StrCat("unexpected '", text.substr(i, 1), "'"));
    }
  }
  return path;
}

const Json* JsonPath::Find(const Json& doc) const {
  const Json* at = &doc;
  for (const Step& step : steps_) {
    if (const std::string* name = std::get_if<std::string>(&step)) {
      if (!at->is_object()) return nullptr;
      auto it = at->find(*name);
      if (it == at->end()) return nullptr;
      at = &*it;
    } else {
      const size_t index = std::get<size_t>(step);
      if (!at->is_array() || index >= at->size()) return nullptr;
      at = &(*at)[index];
    }
  }
  return at;
}

}  // namespace taskboard::triggers
