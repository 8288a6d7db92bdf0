#include "common/otel/attributes.h"

#include <algorithm>
#include <utility>

#include "common/utf8.h"

namespace taskboard::otel {
namespace {

void BoundValue(AttributeValue& value, const SpanLimits& limits) {
  if (auto* text = std::get_if<std::string>(&value)) {
    if (text->size() > limits.max_value_bytes || FindInvalidUtf8(*text)) {
      *text = BoundedUtf8(*text, limits.max_value_bytes);
    }
  } else if (auto* texts = std::get_if<std::vector<std::string>>(&value)) {
    if (texts->size() > limits.max_array_items) texts->resize(limits.max_array_items);
    for (std::string& item : *texts) {
      if (item.size() > limits.max_value_bytes || FindInvalidUtf8(item)) {
        item = BoundedUtf8(item, limits.max_value_bytes);
      }
    }
  }
}

}  // namespace

std::string BoundedUtf8(absl::string_view text, size_t max_bytes) {
  std::string valid = FindInvalidUtf8(text) ? ToValidUtf8(text) : std::string(text);
  if (valid.size() <= max_bytes) return valid;
  size_t end = max_bytes;
  // Back up over continuation bytes (10xxxxxx) to the start of a character.
  while (end > 0 && (static_cast<unsigned char>(valid[end]) & 0xC0) == 0x80) --end;
  valid.resize(end);
  return valid;
}

void SetAttribute(AttributeList& list, size_t max_count, const SpanLimits& limits,
                  absl::string_view raw_key, AttributeValue value) {
  // OTel: an empty key is invalid. Counted, so it is not lost silently.
  if (raw_key.empty()) {
    ++list.dropped;
    return;
  }
  // The key as stored, so that setting the same long or invalid key again
  // finds it rather than adding a second copy.
  std::string key = BoundedUtf8(raw_key, limits.max_value_bytes);
  BoundValue(value, limits);
  auto existing = std::find_if(list.items.begin(), list.items.end(),
                               [&key](const Attribute& item) { return item.key == key; });
  if (existing != list.items.end()) {
    existing->value = std::move(value);
    return;
  }
  if (list.items.size() >= max_count) {
    ++list.dropped;
    return;
  }
  list.items.push_back({std::move(key), std::move(value)});
}

}  // namespace taskboard::otel
