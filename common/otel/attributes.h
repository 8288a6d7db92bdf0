#ifndef TASKBOARD_COMMON_OTEL_ATTRIBUTES_H_
#define TASKBOARD_COMMON_OTEL_ATTRIBUTES_H_

// Span and event attributes (OTel's attribute model, restricted to the types
// Taskboard records) and the limits that keep a span's memory bounded
// whatever a flow or an agent puts in it. Plain values; the functions are
// pure.

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/string_view.h"

namespace taskboard::otel {

using AttributeValue = std::variant<std::string, int64_t, double, bool, std::vector<std::string>>;

struct Attribute {
  std::string key;
  AttributeValue value;

  friend bool operator==(const Attribute&, const Attribute&) = default;
};

// OTel's span limits (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT and kin), with a
// finite value length: Taskboard's attributes may quote prompts and agent
// output.
struct SpanLimits {
  size_t max_attributes = 128;
  // Bytes of a string value or of each string of an array; longer ones are
  // cut at a UTF-8 character boundary.
  size_t max_value_bytes = 4096;
  // Strings of an array value; the rest are left out.
  size_t max_array_items = 128;
  size_t max_events = 128;
  size_t max_event_attributes = 32;
  // Bytes one span may hold in its attributes and events together: keys,
  // values and their bookkeeping (AttributeBytes, EventBytes). Taskboard's
  // own limit: the count and length limits alone let one span hold tens of
  // MiB (128 arrays of 128 strings of 4 KiB), and the queue holds thousands
  // of spans. What would pass it is dropped and counted like an attribute
  // or event past its count.
  size_t max_span_bytes = 64 << 10;
};

// A list of attributes with unique keys, bounded in count.
struct AttributeList {
  std::vector<Attribute> items;
  // Attributes refused because the list was full (OTLP's
  // dropped_attributes_count).
  uint32_t dropped = 0;
};

// Sets `key` to `value` in `list`: an existing key's value is replaced, a
// new key is added unless the list holds `max_count` already (then counted
// as dropped); an empty key is invalid and counted as dropped too. Keys and
// strings are made valid UTF-8 (invalid bytes become U+FFFD: OTLP strings
// must be UTF-8) and bounded by `limits`, the key before it is looked up.
// `budget` is what the span may still take (SpanLimits::max_span_bytes
// less what it holds): an attribute that would take more is dropped and
// counted (a replaced value is kept then), else `budget` is charged with
// the change.
void SetAttribute(AttributeList& list, size_t max_count, const SpanLimits& limits,
                  absl::string_view key, AttributeValue value, size_t& budget);

// What an attribute counts against SpanLimits::max_span_bytes: its key and
// value bytes and the structures that hold them.
size_t AttributeBytes(const Attribute& attribute);

// `text` as valid UTF-8 of at most `max_bytes` bytes, cut at a character
// boundary.
std::string BoundedUtf8(absl::string_view text, size_t max_bytes);

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_ATTRIBUTES_H_
