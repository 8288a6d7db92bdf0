#ifndef TASKBOARD_COMMON_METRICS_FAMILY_H_
#define TASKBOARD_COMMON_METRICS_FAMILY_H_

// One metric name with its help text, constant labels and one child metric
// (Counter, Gauge or Histogram) per distinct label set, like prometheus-cpp's
// Family<T>. Created by the builders (builder.h) and owned by a Registry.
//
// Thread-safe. Add takes a mutex, so hot paths call it once and keep the
// returned reference: children live as long as the family and never move.

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/metrics/collectable.h"
#include "common/metrics/metric_family.h"
#include "common/metrics/metric_names.h"
#include "common/metrics/programmer_error.h"

namespace taskboard::metrics {

template <typename T>
class Family : public Collectable {
 public:
  // The registry validates the name, help and constant labels.
  Family(std::string name, std::string help, Labels constant_labels)
      : name_(std::move(name)),
        help_(std::move(help)),
        constant_labels_(std::move(constant_labels)) {}
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  // The child for `labels`, created with T(args...) on first use; the same
  // labels always return the same child (later `args` are then ignored).
  // Invalid label names, or names that repeat a constant label, are a
  // programmer error: aborts with the reason.
  template <typename... Args>
  T& Add(const Labels& labels, Args&&... args) {
    absl::MutexLock lock(&mu_);
    auto found = children_.find(labels);
    if (found != children_.end()) return *found->second;
    CheckChildLabels(labels);
    auto inserted =
        children_.emplace(labels, std::make_unique<T>(std::forward<Args>(args)...)).first;
    return *inserted->second;
  }

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }

  MetricFamily Collect() const override {
    MetricFamily family{name_, help_, T::kType, {}};
    absl::MutexLock lock(&mu_);
    family.metrics.reserve(children_.size());
    for (const auto& [labels, child] : children_) {
      ClientMetric metric = child->Collect();
      metric.labels = constant_labels_;
      metric.labels.insert(labels.begin(), labels.end());
      family.metrics.push_back(std::move(metric));
    }
    return family;
  }

 private:
  void CheckChildLabels(const Labels& labels) const {
    if (absl::Status status = ValidateLabels(labels, T::kType); !status.ok()) {
      DieOnProgrammerError(absl::StrCat("metric '", name_, "': ", status.message()));
    }
    for (const auto& [label, value] : labels) {
      if (constant_labels_.count(label) > 0) {
        DieOnProgrammerError(absl::StrCat("metric '", name_, "': label '", label,
                                          "' is already a constant label of the family"));
      }
    }
  }

  const std::string name_;
  const std::string help_;
  const Labels constant_labels_;
  mutable absl::Mutex mu_;
  // Keyed by the child's own labels; std::map gives a stable exposition order.
  std::map<Labels, std::unique_ptr<T>> children_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::metrics

#endif  // TASKBOARD_COMMON_METRICS_FAMILY_H_
