#ifndef TASKBOARD_COMMON_METRICS_TEXT_FORMAT_H_
#define TASKBOARD_COMMON_METRICS_TEXT_FORMAT_H_

// Prometheus' text exposition format, version 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/), what
// `GET /metrics` serves. Pure functions over Registry::Collect's snapshot.

#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/metrics/metric_family.h"

namespace taskboard::metrics {

// The Content-Type header for the text this file produces.
inline constexpr absl::string_view kTextFormatContentType =
    "text/plain; version=0.0.4; charset=utf-8";

// Per family with at least one child: `# HELP`, `# TYPE`, then one line per
// sample; labels in name order (a histogram's `le` last); histograms as
// cumulative `_bucket` lines ending at `le="+Inf"`, then `_sum` and `_count`.
// Families without children are left out, as Prometheus' Go client does.
std::string SerializeTextFormat(absl::Span<const MetricFamily> families);

// Numbers as the format writes them: the shortest text that reads back as the
// same double ("0.25", "3", "1e-05"), and `+Inf`, `-Inf`, `NaN`. Used for
// sample values and `le` bounds alike, so a bound always reads the same.
std::string FormatValue(double value);

// Escaping: help text escapes `\` and newline; label values also `"`.
std::string EscapeHelp(absl::string_view help);
std::string EscapeLabelValue(absl::string_view value);

}  // namespace taskboard::metrics

#endif  // TASKBOARD_COMMON_METRICS_TEXT_FORMAT_H_
