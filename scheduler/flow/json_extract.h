#ifndef TASKBOARD_SCHEDULER_FLOW_JSON_EXTRACT_H_
#define TASKBOARD_SCHEDULER_FLOW_JSON_EXTRACT_H_

// Finds the JSON an agent meant to return inside free-form text
// (docs/semantics.md#json-extraction). Agents wrap JSON in prose and markdown fences, so
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

// The JSON value the text is as a whole: the text trimmed, or the body of a
// fenced block that is all of the text (```json ... ```). nullopt when the
// text is anything more, e.g. prose with JSON inside it; unlike ExtractJson,
// this never takes part of a text for the whole.
std::optional<Json> WholeTextJson(absl::string_view text);

// For errors after ExtractJson found nothing: "output holds no JSON", plus
// why the likeliest candidate did not parse when there is one (the first
// ```json block, else the first bracketed span: a trailing comma, a comment,
// single quotes), so the agent can correct it. When brackets in the text
// nest past --max-json-depth (so any JSON in it was refused for its depth),
// the depth error naming the limit, the path and the flag instead.
std::string NoJsonInOutput(absl::string_view text);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_JSON_EXTRACT_H_
