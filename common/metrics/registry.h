#ifndef TASKBOARD_COMMON_METRICS_REGISTRY_H_
#define TASKBOARD_COMMON_METRICS_REGISTRY_H_

// Owns a process's metric families and snapshots them for a scrape, like
// prometheus-cpp's Registry. Families are registered through the builders
// (builder.h); each lives as long as the registry, so references to families
// and their children stay valid until it is destroyed.
//
// Thread-safe: registration, Add on any family, updates and Collect may run
// concurrently.

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/metrics/collectable.h"
#include "common/metrics/family.h"
#include "common/metrics/metric_family.h"

namespace taskboard::metrics {

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Registers a family of T (Counter, Gauge or Histogram).
  // INVALID_ARGUMENT: a name or constant label name breaks Prometheus' rules
  //   (metric_names.h), the help text is empty, a counter's name does not end
  //   in `_total` or another type's does.
  // ALREADY_EXISTS: a family already exposes one of the sample names this one
  //   would (`name`, and for a histogram `name_bucket`, `name_sum`,
  //   `name_count`).
  template <typename T>
  absl::StatusOr<Family<T>*> AddFamily(std::string name, std::string help, Labels constant_labels) {
    absl::MutexLock lock(&mu_);
    if (absl::Status status = CheckNewFamily(name, help, constant_labels, T::kType); !status.ok()) {
      return status;
    }
    auto family = std::make_unique<Family<T>>(name, std::move(help), std::move(constant_labels));
    Family<T>* raw = family.get();
    ReserveSampleNames(name, T::kType);
    families_.push_back(std::move(family));
    return raw;
  }

  // A snapshot of every family, in registration order.
  std::vector<MetricFamily> Collect() const;

 private:
  absl::Status CheckNewFamily(absl::string_view name, absl::string_view help,
                              const Labels& constant_labels, MetricType type) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReserveSampleNames(absl::string_view name, MetricType type)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<Collectable>> families_ ABSL_GUARDED_BY(mu_);
  // Every sample name the registered families expose.
  std::set<std::string, std::less<>> sample_names_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::metrics

#endif  // TASKBOARD_COMMON_METRICS_REGISTRY_H_
