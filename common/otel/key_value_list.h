#ifndef TASKBOARD_COMMON_OTEL_KEY_VALUE_LIST_H_
#define TASKBOARD_COMMON_OTEL_KEY_VALUE_LIST_H_

// The `key1=value1,key2=value2` lists of OTEL_RESOURCE_ATTRIBUTES and
// OTEL_EXPORTER_OTLP_HEADERS (the W3C Baggage format without properties):
// members separated by commas, whitespace around keys and values ignored,
// values percent-decoded. Pure functions; thread-safe.

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace taskboard::otel {

using KeyValueList = std::vector<std::pair<std::string, std::string>>;

// The members in order (empty members skipped). Errors: INVALID_ARGUMENT for
// a member without '=', an empty key, or a bad percent escape, naming it.
absl::StatusOr<KeyValueList> ParseKeyValueList(absl::string_view text);

// `text` with each %XX replaced by its byte. INVALID_ARGUMENT: a '%' not
// followed by two hex digits.
absl::StatusOr<std::string> PercentDecode(absl::string_view text);

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_KEY_VALUE_LIST_H_
