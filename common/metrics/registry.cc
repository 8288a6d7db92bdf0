#include "common/metrics/registry.h"

#include "absl/strings/str_cat.h"
#include "common/metrics/metric_names.h"

namespace taskboard::metrics {
namespace {

// The names a family's samples use in the text format.
std::vector<std::string> SampleNames(absl::string_view name, MetricType type) {
  if (type != MetricType::kHistogram) return {std::string(name)};
  return {std::string(name), absl::StrCat(name, "_bucket"), absl::StrCat(name, "_sum"),
          absl::StrCat(name, "_count")};
}

}  // namespace

std::vector<MetricFamily> Registry::Collect() const {
  absl::MutexLock lock(&mu_);
  std::vector<MetricFamily> families;
  families.reserve(families_.size());
  for (const auto& family : families_) families.push_back(family->Collect());
  return families;
}

absl::Status Registry::CheckNewFamily(absl::string_view name, absl::string_view help,
                                      const Labels& constant_labels, MetricType type) const {
  if (absl::Status status = ValidateMetricName(name); !status.ok()) return status;
  if (absl::Status status = ValidateNameForType(name, type); !status.ok()) return status;
  if (help.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("metric '", name, "' has no help text; say what it counts and in which unit"));
  }
  if (absl::Status status = ValidateLabels(constant_labels, type); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("metric '", name, "': ", status.message()));
  }
  for (const std::string& sample_name : SampleNames(name, type)) {
    if (sample_names_.count(sample_name) > 0) {
      return absl::AlreadyExistsError(
          absl::StrCat("metric '", name, "' would expose '", sample_name,
                       "', which an already registered family exposes; register each "
                       "family once and share the reference"));
    }
  }
  return absl::OkStatus();
}

void Registry::ReserveSampleNames(absl::string_view name, MetricType type) {
  for (std::string& sample_name : SampleNames(name, type)) {
    sample_names_.insert(std::move(sample_name));
  }
}

}  // namespace taskboard::metrics
