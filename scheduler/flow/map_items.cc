#include "scheduler/flow/map_items.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "scheduler/flow/json_extract.h"

namespace taskboard::flow {
namespace {

constexpr size_t kShownChars = 80;

// The array `value` stands for, if it is one or wraps one.
const Json* ItemsArray(const Json& value) {
  if (value.is_array()) return &value;
  if (!value.is_object()) return nullptr;
  for (const char* key : {"items", "results", "list", "data"}) {
    auto found = value.find(key);
    if (found != value.end() && found->is_array()) return &*found;
  }
  return nullptr;
}

// The first `max_chars` characters of UTF-8 `text`, counting a multibyte
// sequence as one character so the cut never splits it.
absl::string_view FirstChars(absl::string_view text, size_t max_chars) {
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    bool continuation_byte = (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;
    if (continuation_byte) continue;
    if (chars == max_chars) return text.substr(0, i);
    ++chars;
  }
  return text;
}

}  // namespace

absl::StatusOr<std::vector<Json>> ResolveMapItems(absl::string_view phase_id,
                                                  const Json& resolved) {
  const Json* items = ItemsArray(resolved);
  std::optional<Json> extracted;
  if (items == nullptr && resolved.is_string()) {
    extracted = ExtractJson(resolved.get_ref<const std::string&>());
    if (extracted.has_value()) items = ItemsArray(*extracted);
  }
  if (items == nullptr) {
    std::string shown = resolved.is_string() ? resolved.get<std::string>() : DumpJson(resolved);
    return absl::InvalidArgumentError(absl::StrCat(
        "map phase '", phase_id,
        "': 'over' did not resolve to an array (got: ", FirstChars(shown, kShownChars), ")"));
  }
  return std::vector<Json>(items->begin(), items->end());
}

}  // namespace taskboard::flow
