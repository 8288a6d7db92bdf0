#include "scheduler/flow/interpolation.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/types/span.h"

namespace taskboard::flow {
namespace {

using Segments = absl::Span<const std::string>;

constexpr absl::string_view kDefaultItemVar = "item";

bool IsSegmentChar(char c) { return absl::ascii_isalnum(c) || c == '_' || c == '-'; }

bool IsKnownRoot(absl::string_view root, absl::string_view item_var) {
  // `item` stays a root even when a map renames its item with `as`, so a
  // leftover `{item}` is reported instead of reaching the agent as text.
  if (root == "args" || root == "steps" || root == "previous" || root == kDefaultItemVar) {
    return true;
  }
  return !item_var.empty() && root == item_var;
}

// The index of the '}' closing a well-formed placeholder whose '{' is at
// `open`, or npos when the text there is not one.
size_t MatchPlaceholder(absl::string_view tmpl, size_t open) {
  size_t i = open + 1;
  while (true) {
    const size_t segment_start = i;
    while (i < tmpl.size() && IsSegmentChar(tmpl[i])) ++i;
    if (i == segment_start || i == tmpl.size()) return absl::string_view::npos;
    if (tmpl[i] == '}') return i;
    if (tmpl[i] != '.') return absl::string_view::npos;
    ++i;
  }
}

// Resolution result: the value, or an error whose message is the short "why"
// appended to `unresolved placeholder {...}: `.
using Resolved = absl::StatusOr<Json>;

Resolved Unresolved(absl::string_view why) { return absl::InvalidArgumentError(why); }

// Array indices are plain non-negative decimal numbers; anything else (such
// as "-1" or "first") cannot address an array element.
const Json* FollowPath(const Json& base, Segments path) {
  const Json* current = &base;
  for (const std::string& segment : path) {
    if (current->is_object()) {
      auto it = current->find(segment);
      if (it == current->end()) return nullptr;
      current = &*it;
    } else if (current->is_array()) {
      size_t index = 0;
      if (segment.find_first_not_of("0123456789") != std::string::npos ||
          !absl::SimpleAtoi(segment, &index) || index >= current->size()) {
        return nullptr;
      }
      current = &(*current)[index];
    } else {
      return nullptr;
    }
  }
  return current;
}

Resolved ResolvePath(const Json& base, Segments path, absl::string_view base_name) {
  const Json* found = FollowPath(base, path);
  if (found == nullptr) {
    return Unresolved(
        absl::StrCat("path '", absl::StrJoin(path, "."), "' not found in ", base_name));
  }
  return *found;
}

Resolved ResolveArgs(Segments segments, const InterpolationContext& ctx) {
  static const Json* const kNoArgs = new Json(Json::object());
  const Json& args = ctx.args != nullptr ? *ctx.args : *kNoArgs;
  if (segments.size() == 1) return args;
  const std::string& name = segments[1];
  // An explicitly null arg is a value (it renders as ""); an absent one is not.
  if (!args.is_object()) return Unresolved(absl::StrCat("arg '", name, "' has no value"));
  auto value = args.find(name);
  if (value == args.end()) return Unresolved(absl::StrCat("arg '", name, "' has no value"));
  return ResolvePath(*value, segments.subspan(2), absl::StrCat("args.", name));
}

// `{steps.ID.output.NAME}` of a done approval step: the form value NAME of
// its decision ("" when the approver left it empty).
Resolved ResolveFormValue(const std::string& id, const StepValue& step, const std::string& name) {
  if (std::string error = FormFieldError("phase", id, name, &*step.form_fields); !error.empty()) {
    return Unresolved(error);
  }
  const std::string path[] = {"values", name};
  const Json* value = step.json.has_value() ? FollowPath(*step.json, path) : nullptr;
  return value != nullptr && value->is_string() ? *value : Json("");
}

Resolved ResolveStep(Segments segments, const InterpolationContext& ctx) {
  const bool is_output = segments.size() == 3 && segments[2] == "output";
  const bool is_field = segments.size() == 4 && segments[2] == "output";
  const bool is_json = segments.size() >= 3 && segments[2] == "json";
  if (!is_output && !is_field && !is_json) {
    return Unresolved(
        "expected {steps.ID.output}, {steps.ID.json[.path]} or, for an approval, "
        "{steps.ID.output.FIELD}");
  }
  const std::string& id = segments[1];
  auto it = ctx.steps.find(id);
  if (it == ctx.steps.end()) {
    return Unresolved(absl::StrCat("phase '", id, "' is not upstream of this phase"));
  }
  const StepValue& step = it->second;
  if (is_field && !step.form_fields.has_value()) {
    return Unresolved(FormFieldError("phase", id, segments[3], nullptr));
  }
  if (step.state != StepValue::State::kDone) {
    // A failed or skipped optional dependency still satisfies its dependents
    // (docs/semantics.md#execution), so its placeholders must resolve: to empty.
    if (step.optional) return is_output ? Json("") : Json(nullptr);
    return Unresolved(absl::StrCat(
        "phase '", id, "' ", step.state == StepValue::State::kFailed ? "failed" : "was skipped"));
  }
  if (is_output) return Json(step.output);
  if (is_field) return ResolveFormValue(id, step, segments[3]);
  if (!step.json.has_value()) {
    return Unresolved(absl::StrCat("phase '", id, "' output is not JSON"));
  }
  return ResolvePath(*step.json, segments.subspan(3), absl::StrCat("steps.", id, ".json"));
}

Resolved ResolvePrevious(Segments segments, const InterpolationContext& ctx) {
  if (segments.size() != 2 || segments[1] != "output")
    return Unresolved("expected {previous.output}");
  if (ctx.previous_candidates.empty()) return Unresolved("this phase has no dependencies");
  bool only_optional_not_done = true;
  for (auto id = ctx.previous_candidates.rbegin(); id != ctx.previous_candidates.rend(); ++id) {
    auto it = ctx.steps.find(*id);
    if (it == ctx.steps.end()) {
      only_optional_not_done = false;
      continue;
    }
    if (it->second.state == StepValue::State::kDone) return Json(it->second.output);
    if (!it->second.optional) only_optional_not_done = false;
  }
  if (only_optional_not_done) return Json("");
  return Unresolved("no dependency of this phase is done");
}

Resolved ResolveItem(Segments segments, const InterpolationContext& ctx) {
  if (ctx.item_var.empty()) return Unresolved("not inside a map phase");
  if (segments.front() != ctx.item_var) {
    return Unresolved(
        absl::StrCat("this map names its item '", ctx.item_var, "'; use {", ctx.item_var, "}"));
  }
  if (ctx.item == nullptr) return Unresolved("no current map item");
  return ResolvePath(*ctx.item, segments.subspan(1), ctx.item_var);
}

// `placeholder` comes from FindPlaceholders, so its root is a known one.
Resolved Resolve(const Placeholder& placeholder, const InterpolationContext& ctx) {
  const Segments segments(placeholder.segments);
  const std::string& root = segments.front();
  if (root == "args") return ResolveArgs(segments, ctx);
  if (root == "steps") return ResolveStep(segments, ctx);
  if (root == "previous") return ResolvePrevious(segments, ctx);
  return ResolveItem(segments, ctx);
}

std::string UnresolvedLine(const Placeholder& placeholder, const absl::Status& why) {
  return absl::StrCat("unresolved placeholder {", placeholder.text, "}: ", why.message());
}

}  // namespace

bool IsPlaceholderSegment(absl::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!IsSegmentChar(c)) return false;
  }
  return true;
}

std::vector<Placeholder> FindPlaceholders(absl::string_view tmpl, absl::string_view item_var) {
  std::vector<Placeholder> found;
  size_t open = tmpl.find('{');
  while (open != absl::string_view::npos) {
    const size_t close = MatchPlaceholder(tmpl, open);
    if (close == absl::string_view::npos) {
      open = tmpl.find('{', open + 1);
      continue;
    }
    Placeholder placeholder;
    placeholder.text = std::string(tmpl.substr(open + 1, close - open - 1));
    placeholder.segments = absl::StrSplit(placeholder.text, '.');
    placeholder.offset = open;
    placeholder.length = close - open + 1;
    if (IsKnownRoot(placeholder.segments.front(), item_var)) {
      found.push_back(std::move(placeholder));
    }
    open = tmpl.find('{', close + 1);
  }
  return found;
}

std::string FormFieldError(absl::string_view noun, absl::string_view id, absl::string_view name,
                           const std::vector<std::string>* form_fields) {
  if (form_fields == nullptr) {
    return absl::StrCat("only approval steps have named outputs (their form values); ", noun, " '",
                        id, "' is not one: read its JSON output with {steps.", id, ".json.", name,
                        "}");
  }
  if (std::find(form_fields->begin(), form_fields->end(), name) != form_fields->end()) return "";
  return absl::StrCat("approval '", id, "' has no form field '", name, "' (",
                      form_fields->empty()
                          ? std::string("it has no form")
                          : absl::StrCat("its fields: ", absl::StrJoin(*form_fields, ", ")),
                      "); its decision is {steps.", id, ".json.decision}");
}

std::string RenderValue(const Json& value) {
  if (value.is_string()) return value.get_ref<const std::string&>();
  if (value.is_null()) return "";
  if (value.is_structured()) return DumpJsonPretty(value);
  return DumpJson(value);
}

namespace {

absl::Status OverLimit(size_t max_bytes) {
  return absl::ResourceExhaustedError(
      absl::StrCat("is over ", max_bytes, " bytes once interpolated"));
}

}  // namespace

absl::StatusOr<std::string> Interpolate(absl::string_view tmpl, const InterpolationContext& ctx) {
  std::string out;
  std::vector<std::string> errors;
  absl::flat_hash_set<std::string> reported;  // one line per distinct placeholder
  size_t copied_up_to = 0;
  for (const Placeholder& placeholder : FindPlaceholders(tmpl, ctx.item_var)) {
    absl::StrAppend(&out, tmpl.substr(copied_up_to, placeholder.offset - copied_up_to));
    copied_up_to = placeholder.offset + placeholder.length;
    Resolved value = Resolve(placeholder, ctx);
    if (value.ok()) {
      absl::StrAppend(&out, RenderValue(*value));
      // Checked as it grows: many placeholders of a large value multiply.
      if (ctx.max_bytes > 0 && out.size() > ctx.max_bytes) return OverLimit(ctx.max_bytes);
    } else if (reported.insert(placeholder.text).second) {
      errors.push_back(UnresolvedLine(placeholder, value.status()));
    }
  }
  if (!errors.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors, "\n"));
  absl::StrAppend(&out, tmpl.substr(copied_up_to));
  if (ctx.max_bytes > 0 && out.size() > ctx.max_bytes) return OverLimit(ctx.max_bytes);
  return out;
}

absl::StatusOr<Json> InterpolateValue(absl::string_view tmpl, const InterpolationContext& ctx) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(tmpl);
  std::vector<Placeholder> found = FindPlaceholders(trimmed, ctx.item_var);
  if (found.size() == 1 && found[0].offset == 0 && found[0].length == trimmed.size()) {
    Resolved value = Resolve(found[0], ctx);
    if (!value.ok()) return absl::InvalidArgumentError(UnresolvedLine(found[0], value.status()));
    return value;
  }
  absl::StatusOr<std::string> text = Interpolate(tmpl, ctx);
  if (!text.ok()) return text.status();
  return Json(*std::move(text));
}

}  // namespace taskboard::flow
