#include "scheduler/triggers/event_filter.h"

#include "absl/strings/str_cat.h"

namespace taskboard::triggers {
namespace {

// A value as a reason shows it: compact JSON, cut to stay readable.
std::string Shown(const Json& value) {
  std::string text = DumpJson(value);
  if (text.size() > 80) text = absl::StrCat(text.substr(0, 77), "...");
  return text;
}

}  // namespace

std::optional<std::string> FilterMismatch(const std::vector<FilterCondition>& filter,
                                          const Event& event) {
  for (const FilterCondition& condition : filter) {
    if (condition.path.has_value()) {
      const Json* value = condition.path->Find(event.payload);
      if (value == nullptr) {
        return absl::StrCat(condition.path->text(), " is not in the payload (filter wants ",
                            Shown(condition.equals), ")");
      }
      if (*value != condition.equals) {
        return absl::StrCat(condition.path->text(), " is ", Shown(*value), ", not ",
                            Shown(condition.equals));
      }
      continue;
    }
    const std::string value = event.Header(condition.header);
    if (!condition.equals.is_string() || value != condition.equals.get_ref<const std::string&>()) {
      return absl::StrCat("header ", condition.header, " is ", Shown(Json(value)), ", not ",
                          Shown(condition.equals));
    }
  }
  return std::nullopt;
}

}  // namespace taskboard::triggers
