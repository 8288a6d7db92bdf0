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

size_t AttributeBytes(const Attribute& attribute) {
  size_t bytes = sizeof(Attribute) + attribute.key.size();
  if (const auto* text = std::get_if<std::string>(&attribute.value)) {
    bytes += text->size();
  } else if (const auto* texts = std::get_if<std::vector<std::string>>(&attribute.value)) {
    for (const std::string& item : *texts) bytes += sizeof(std::string) + item.size();
  }
  return bytes;
}

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
                  absl::string_view raw_key, AttributeValue value, size_t& budget) {
  // OTel: an empty key is invalid. Counted, so it is not lost silently.
  if (raw_key.empty()) {
    ++list.dropped;
    return;
  }
  // The key as stored, so that setting the same long or invalid key again
  // finds it rather than adding a second copy.
  Attribute attribute{BoundedUtf8(raw_key, limits.max_value_bytes), std::move(value)};
  BoundValue(attribute.value, limits);
  const size_t bytes = AttributeBytes(attribute);
  auto existing =
      std::find_if(list.items.begin(), list.items.end(),
                   [&attribute](const Attribute& item) { return item.key == attribute.key; });
  if (existing != list.items.end()) {
    const size_t freed = AttributeBytes(*existing);
    if (bytes > budget + freed) {
      ++list.dropped;
      return;
    }
    budget = budget + freed - bytes;
    existing->value = std::move(attribute.value);
    return;
  }
  if (list.items.size() >= max_count || bytes > budget) {
    ++list.dropped;
    return;
  }
  budget -= bytes;
  list.items.push_back(std::move(attribute));
}

}  // namespace taskboard::otel
