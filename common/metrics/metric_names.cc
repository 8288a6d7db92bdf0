#include "common/metrics/metric_names.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace taskboard::metrics {
namespace {

// True when `name` is non-empty, starts with a letter, `_` (or `:` if
// `allow_colon`) and continues with those or digits.
bool MatchesNameRule(absl::string_view name, bool allow_colon) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool allowed = absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_' ||
                         (allow_colon && c == ':') ||
                         (i > 0 && absl::ascii_isdigit(static_cast<unsigned char>(c)));
    if (!allowed) return false;
  }
  return true;
}

}  // namespace

absl::Status ValidateMetricName(absl::string_view name) {
  if (MatchesNameRule(name, /*allow_colon=*/true)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("metric name '", name,
                   "' is invalid: it must match [a-zA-Z_:][a-zA-Z0-9_:]*, e.g. "
                   "taskboard_tasks_dispatched_total"));
}

absl::Status ValidateLabelName(absl::string_view name) {
  if (!MatchesNameRule(name, /*allow_colon=*/false)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "label name '", name, "' is invalid: it must match [a-zA-Z_][a-zA-Z0-9_]*, e.g. agent"));
  }
  if (absl::StartsWith(name, "__")) {
    return absl::InvalidArgumentError(
        absl::StrCat("label name '", name,
                     "' is invalid: names starting with '__' are reserved "
                     "for Prometheus; drop the leading underscores"));
  }
  return absl::OkStatus();
}

absl::Status ValidateLabels(const Labels& labels, MetricType type) {
  for (const auto& [name, value] : labels) {
    if (absl::Status status = ValidateLabelName(name); !status.ok()) return status;
    if (type == MetricType::kHistogram && name == "le") {
      return absl::InvalidArgumentError(
          "label name 'le' is reserved in a histogram for its bucket bounds; pick another name");
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateNameForType(absl::string_view name, MetricType type) {
  const bool total = absl::EndsWith(name, "_total");
  if (type == MetricType::kCounter && !total) {
    return absl::InvalidArgumentError(
        absl::StrCat("counter '", name, "' must end in '_total', e.g. ", name, "_total"));
  }
  if (type != MetricType::kCounter && total) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", name, "' ends in '_total', which Prometheus reserves for counters; rename it"));
  }
  return absl::OkStatus();
}

}  // namespace taskboard::metrics
