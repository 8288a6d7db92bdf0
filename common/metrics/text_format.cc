#include "common/metrics/text_format.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace taskboard::metrics {
namespace {

absl::string_view TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

std::string Escape(absl::string_view text, bool escape_quote) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    if (c == '\\') {
      escaped += "\\\\";
    } else if (c == '\n') {
      escaped += "\\n";
    } else if (c == '"' && escape_quote) {
      escaped += "\\\"";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

// `{a="1",b="2"}`, with `le` last when given; nothing for no labels.
void AppendLabels(const Labels& labels, const std::string* le, std::string& out) {
  if (labels.empty() && le == nullptr) return;
  out += '{';
  bool first = true;
  auto append = [&](absl::string_view name, absl::string_view value) {
    if (!first) out += ',';
    first = false;
    absl::StrAppend(&out, name, "=\"", EscapeLabelValue(value), "\"");
  };
  for (const auto& [name, value] : labels) append(name, value);
  if (le != nullptr) append("le", *le);
  out += '}';
}

void AppendSample(absl::string_view name, const Labels& labels, const std::string* le,
                  absl::string_view value, std::string& out) {
  out.append(name.data(), name.size());
  AppendLabels(labels, le, out);
  absl::StrAppend(&out, " ", value, "\n");
}

void AppendHistogram(absl::string_view name, const ClientMetric& metric, std::string& out) {
  const std::string bucket_name = absl::StrCat(name, "_bucket");
  for (const HistogramBucket& bucket : metric.buckets) {
    const std::string le = FormatValue(bucket.upper_bound);
    AppendSample(bucket_name, metric.labels, &le, absl::StrCat(bucket.cumulative_count), out);
  }
  AppendSample(absl::StrCat(name, "_sum"), metric.labels, nullptr, FormatValue(metric.sum), out);
  AppendSample(absl::StrCat(name, "_count"), metric.labels, nullptr, absl::StrCat(metric.count),
               out);
}

}  // namespace

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[32];
  const std::to_chars_result result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

std::string EscapeHelp(absl::string_view help) { return Escape(help, /*escape_quote=*/false); }

std::string EscapeLabelValue(absl::string_view value) {
  return Escape(value, /*escape_quote=*/true);
}

std::string SerializeTextFormat(absl::Span<const MetricFamily> families) {
  std::string out;
  for (const MetricFamily& family : families) {
    if (family.metrics.empty()) continue;
    absl::StrAppend(&out, "# HELP ", family.name, " ", EscapeHelp(family.help), "\n");
    absl::StrAppend(&out, "# TYPE ", family.name, " ", TypeName(family.type), "\n");
    for (const ClientMetric& metric : family.metrics) {
      if (family.type == MetricType::kHistogram) {
        AppendHistogram(family.name, metric, out);
      } else {
        AppendSample(family.name, metric.labels, nullptr, FormatValue(metric.value), out);
      }
    }
  }
  return out;
}

}  // namespace taskboard::metrics
