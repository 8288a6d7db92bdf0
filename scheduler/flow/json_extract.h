#ifndef TASKBOARD_SCHEDULER_FLOW_JSON_EXTRACT_H_
#define TASKBOARD_SCHEDULER_FLOW_JSON_EXTRACT_H_

// Finds the JSON an agent meant to return inside free-form text
// (SEMANTICS.md 2.3). Agents wrap JSON in prose and markdown fences, so
// `output: json`, a map's `over` and gate verdicts all read agent output
// through this one function rather than a strict parse.

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard::flow {

// Tries, in order, and returns the first that parses:
//   1. the whole text, trimmed (any JSON value, scalars included);
//   2. each fenced ```json block, then each untagged ``` block;
//   3. the span from an opening `[` or `{` to its matching close, found by a
//      balanced scan that skips brackets inside JSON strings; when a span does
//      not parse, the scan restarts at the next opening bracket after its start.
// nullopt when none parses. Never throws.
std::optional<Json> ExtractJson(absl::string_view text);

// For errors after ExtractJson found nothing: "output holds no JSON", or,
// when brackets in the text nest past --max-json-depth (so any JSON in it
// was refused for its depth), that plus the depth error naming the limit,
// the path and the flag.
std::string NoJsonInOutput(absl::string_view text);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_JSON_EXTRACT_H_
