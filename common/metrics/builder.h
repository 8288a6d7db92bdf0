#ifndef TASKBOARD_COMMON_METRICS_BUILDER_H_
#define TASKBOARD_COMMON_METRICS_BUILDER_H_

// prometheus-cpp's builder idiom, so that call sites read the same and a later
// swap is mechanical:
//
//   Family<Counter>& dispatched = BuildCounter()
//                                     .Name("taskboard_tasks_dispatched_total")
//                                     .Help("Tasks sent to a worker.")
//                                     .Register(registry);
//   Counter& shell = dispatched.Add({{"agent", "shell"}});
//   shell.Increment();
//
// Register treats a rejected family as a programmer error (metric names are
// constants in the code) and aborts with Registry::AddFamily's message;
// TryRegister returns that error instead, for names built at run time.

#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "common/metrics/counter.h"
#include "common/metrics/family.h"
#include "common/metrics/gauge.h"
#include "common/metrics/histogram.h"
#include "common/metrics/metric_family.h"
#include "common/metrics/programmer_error.h"
#include "common/metrics/registry.h"

namespace taskboard::metrics {

template <typename T>
class Builder {
 public:
  Builder& Name(std::string name) {
    name_ = std::move(name);
    return *this;
  }
  Builder& Help(std::string help) {
    help_ = std::move(help);
    return *this;
  }
  // Constant labels, added to every child of the family.
  Builder& Labels(metrics::Labels labels) {
    labels_ = std::move(labels);
    return *this;
  }

  // See Registry::AddFamily for the errors.
  absl::StatusOr<Family<T>*> TryRegister(Registry& registry) const {
    return registry.AddFamily<T>(name_, help_, labels_);
  }

  // Aborts with the reason if the registry rejects the family.
  Family<T>& Register(Registry& registry) const {
    absl::StatusOr<Family<T>*> family = TryRegister(registry);
    if (!family.ok()) DieOnProgrammerError(family.status().message());
    return **family;
  }

 private:
  std::string name_;
  std::string help_;
  metrics::Labels labels_;
};

inline Builder<Counter> BuildCounter() { return {}; }
inline Builder<Gauge> BuildGauge() { return {}; }
inline Builder<Histogram> BuildHistogram() { return {}; }

}  // namespace taskboard::metrics

#endif  // TASKBOARD_COMMON_METRICS_BUILDER_H_
