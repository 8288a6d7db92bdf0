#ifndef TASKBOARD_SCHEDULER_FLOW_INTERPOLATION_H_
#define TASKBOARD_SCHEDULER_FLOW_INTERPOLATION_H_

// Placeholder interpolation in phase task text (docs/semantics.md#interpolation): finds
// `{args.x}`, `{steps.a.output}`, `{steps.d.json.0.name}`, `{item.path}`,
// `{previous.output}` and, for an approval step, its form value
// `{steps.ok.output.version}` in a template and replaces them with upstream
// values.
//
// Interpolation is strict: a placeholder that cannot be resolved fails the
// phase before dispatch, because sending a literal placeholder to an LLM is a
// silent bug. The one exception is an optional dependency that failed or was
// skipped, which resolves to empty.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard::flow {

// A placeholder found in a template: `{steps.a.output}` has text
// "steps.a.output" and segments {"steps", "a", "output"}.
struct Placeholder {
  std::string text;                   // without braces
  std::vector<std::string> segments;  // `text` split on '.'
  size_t offset = 0;                  // byte offset of '{' in the template
  size_t length = 0;                  // including both braces
};

// True when `text` is one placeholder segment: non-empty [A-Za-z0-9_-]+.
// Phase, task and arg ids use the same charset so placeholders can name them.
bool IsPlaceholderSegment(absl::string_view text);

// Every placeholder in `tmpl`, in order: `{`, segments of [A-Za-z0-9_-]+
// joined by '.', `}`, with nothing else inside the braces, so JSON-looking
// text such as `{"a":1}`, `{ x }` or `{}` never matches.
//
// Only placeholders whose first segment is a known root are returned: `args`,
// `steps`, `previous`, and the map item name. Any other `{word}` is ordinary
// prompt text (prompts often hold code samples such as `{name}`). The item
// root is `item_var` inside a map phase (`item`, or the phase's `as`); pass
// "" outside a map phase, where `item` is still a root so that a stray
// `{item}` is reported as unresolved instead of reaching the agent.
std::vector<Placeholder> FindPlaceholders(absl::string_view tmpl, absl::string_view item_var);

// The value of one upstream phase as interpolation sees it.
struct StepValue {
  enum class State { kDone, kFailed, kSkipped };
  State state = State::kDone;
  std::string output;        // text output
  std::optional<Json> json;  // parsed JSON (output:json phases, or text that held JSON)
  bool optional = false;     // the phase is marked `optional`
  // Set for an approval step (its `json` is the decision): its form's field
  // names, which `{steps.ID.output.NAME}` reads from the decision's values.
  std::optional<std::vector<std::string>> form_fields;
};

// Everything a phase's placeholders may refer to. Pointers are borrowed and
// must outlive the Interpolate call.
struct InterpolationContext {
  const Json* args = nullptr;                         // run args object; null means {}
  absl::flat_hash_map<std::string, StepValue> steps;  // upstream phases by id
  std::string item_var;                               // "" outside a map phase
  const Json* item = nullptr;                         // the current map item
  // This phase's dependencies in declaration order (dependsOn, then from);
  // `{previous.output}` scans them from the end.
  std::vector<std::string> previous_candidates;
  // The largest interpolated text allowed; 0: no limit.
  size_t max_bytes = 0;
};

// Why `{steps.ID.output.NAME}` cannot read a form value of the step `id`
// (a `noun`: phase, task), whose form has `form_fields` (null: the step is
// not an approval, so it has no named outputs); "" when it can. Shared by
// interpolation and the validator, which checks declared forms up front.
std::string FormFieldError(absl::string_view noun, absl::string_view id, absl::string_view name,
                           const std::vector<std::string>* form_fields);

// Renders a value the way interpolation inserts it: strings as-is; null ->
// ""; numbers and booleans -> JSON text; objects and arrays -> JSON
// pretty-printed with a 2-space indent.
std::string RenderValue(const Json& value);

// Replaces every placeholder in `tmpl`. Inserted values are not scanned
// again, so a value containing `{args.x}` text stays literal.
//
// An optional dependency that failed or was skipped resolves to "" for
// `.output[.NAME]` and to null (rendered as "") for `.json[.path]`. A form
// field the approver left empty resolves to "".
//
// Errors: INVALID_ARGUMENT listing every unresolved placeholder, one per
// line, as `unresolved placeholder {steps.x.output}: <why>`, e.g.
// "phase 'x' is not upstream of this phase", "arg 'x' has no value",
// "path 'a.b' not found in steps.d.json", "phase 'x' output is not JSON",
// "approval 'x' has no form field 'y' (its fields: a, b)".
// RESOURCE_EXHAUSTED `is over N bytes once interpolated` when the text
// passes ctx.max_bytes (checked while it grows, so nothing larger is built).
absl::StatusOr<std::string> Interpolate(absl::string_view tmpl, const InterpolationContext& ctx);

// Like Interpolate, but when `tmpl` (trimmed of whitespace) is exactly one
// placeholder, its JSON value is returned as-is, so `over: "{steps.d.json}"`
// yields the array rather than its text. Otherwise the interpolated text as a
// JSON string. Used for a map phase's `over`. Same errors as Interpolate.
absl::StatusOr<Json> InterpolateValue(absl::string_view tmpl, const InterpolationContext& ctx);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_INTERPOLATION_H_
