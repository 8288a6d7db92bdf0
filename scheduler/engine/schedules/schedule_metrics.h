#ifndef TASKBOARD_SCHEDULER_ENGINE_SCHEDULES_SCHEDULE_METRICS_H_
#define TASKBOARD_SCHEDULER_ENGINE_SCHEDULES_SCHEDULE_METRICS_H_

// The schedule metrics (docs/schedules.md#metrics, docs/metrics.md):
//
//   taskboard_schedule_fires_total{manual}      runs started: manual = spec,
//                                               trigger or backfill
//   taskboard_schedule_missed_total             fires older than the catch-up window
//   taskboard_schedule_overlaps_skipped_total   fires skipped for a running run
//   taskboard_schedule_start_errors_total       fires whose run could not be started
//   taskboard_schedule_fire_lag_seconds         due time to run start, histogram
//   taskboard_schedules                         schedules held, gauge
//
// Called on the engine's loop thread; every hook is a family lookup plus an
// atomic.

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/metrics/counter.h"
#include "common/metrics/family.h"
#include "common/metrics/gauge.h"
#include "common/metrics/histogram.h"
#include "common/metrics/registry.h"

namespace taskboard::engine {

class ScheduleMetrics {
 public:
  // Registers the families in `registry`, which must outlive this object;
  // every series starts at 0.
  explicit ScheduleMetrics(metrics::Registry& registry);

  // `manual`: "" (a fire of the spec), "trigger" or "backfill"; `lag`: from the fire's due time.
  void Fired(absl::string_view manual, absl::Duration lag);
  void Missed(int64_t count);
  void OverlapSkipped();
  void StartFailed();
  void SetSchedules(int64_t count);

 private:
  metrics::Family<metrics::Counter>& fires_;
  metrics::Family<metrics::Counter>& missed_;
  metrics::Family<metrics::Counter>& skipped_;
  metrics::Family<metrics::Counter>& errors_;
  metrics::Family<metrics::Histogram>& lag_;
  metrics::Family<metrics::Gauge>& schedules_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_SCHEDULES_SCHEDULE_METRICS_H_
