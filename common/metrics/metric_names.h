#ifndef TASKBOARD_COMMON_METRICS_METRIC_NAMES_H_
#define TASKBOARD_COMMON_METRICS_METRIC_NAMES_H_

// Prometheus' naming rules, checked once at registration so that nothing we
// expose can be rejected by a scraper. See docs/metrics.md for the project's
// conventions on top of these rules (`taskboard_` prefix, `_total`, `_seconds`).

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/metrics/metric_family.h"

namespace taskboard::metrics {

// INVALID_ARGUMENT unless `name` matches [a-zA-Z_:][a-zA-Z0-9_:]*.
absl::Status ValidateMetricName(absl::string_view name);

// INVALID_ARGUMENT unless `name` matches [a-zA-Z_][a-zA-Z0-9_]* and does not
// start with `__` (reserved for Prometheus' internal labels).
absl::Status ValidateLabelName(absl::string_view name);

// ValidateLabelName for every name in `labels`; a histogram's labels must
// also not use `le`, which its buckets use. Values may be any string.
absl::Status ValidateLabels(const Labels& labels, MetricType type);

// INVALID_ARGUMENT when a family named `name` of `type` would break
// Prometheus' conventions that `promtool check metrics` enforces: counters end
// in `_total` and nothing else does.
absl::Status ValidateNameForType(absl::string_view name, MetricType type);

}  // namespace taskboard::metrics

#endif  // TASKBOARD_COMMON_METRICS_METRIC_NAMES_H_
