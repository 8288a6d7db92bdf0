#ifndef TASKBOARD_SCHEDULER_TRIGGERS_JSON_PATH_H_
#define TASKBOARD_SCHEDULER_TRIGGERS_JSON_PATH_H_

// A field of an event's JSON payload named the way webhook users already
// write it (docs/schedules.md#json-paths): `$.pull_request.number`,
// `$.commits[0].id`, `$['x-y']`. Only JSONPath's (RFC 9535) member and
// index selectors: a trigger names one value, so wildcards, slices and
// filters, which select many, are refused rather than half supported.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard::triggers {

class JsonPath {
 public:
  // INVALID_ARGUMENT saying what is wrong where: not starting with `$`, an
  // empty member name, an unclosed bracket, a wildcard or filter.
  static absl::StatusOr<JsonPath> Parse(absl::string_view text);

  // The value at this path in `doc`, or null when any step is missing (a
  // member of a non-object, an index past the end).
  const Json* Find(const Json& doc) const;

  const std::string& text() const { return text_; }

 private:
  using Step = std::variant<std::string, size_t>;  // member name or index
  std::string text_;
  std::vector<Step> steps_;
};

// Whether `text` is meant as a path: it starts with `$.` or `$[`, or is `$`.
bool LooksLikeJsonPath(absl::string_view text);

}  // namespace taskboard::triggers

#endif  // TASKBOARD_SCHEDULER_TRIGGERS_JSON_PATH_H_
