#include "scheduler/engine/schedules/schedule_metrics.h"

#include <string>

#include "common/metrics/builder.h"

namespace taskboard::engine {
namespace {

// A fire starts within a batch of its due time unless the scheduler was
// down: 10 ms doubling up to about 3 minutes (the catch-up window's scale).
metrics::BucketBoundaries LagBuckets() { return metrics::ExponentialBuckets(0.01, 2, 15); }

}  // namespace

ScheduleMetrics::ScheduleMetrics(metrics::Registry& registry)
    : fires_(metrics::BuildCounter()
                 .Name("taskboard_schedule_fires_total")
                 .Help("Runs started by schedules, by manual (spec: a fire of the spec; "
                       "trigger; backfill).")
                 .Register(registry)),
      missed_(metrics::BuildCounter()
                  .Name("taskboard_schedule_missed_total")
                  .Help("Schedule fires recorded as missed: due longer than the catch-up "
                        "window ago.")
                  .Register(registry)),
      skipped_(metrics::BuildCounter()
                   .Name("taskboard_schedule_overlaps_skipped_total")
                   .Help("Schedule fires not run because a run of the schedule was running "
                         "(overlap policy).")
                   .Register(registry)),
      errors_(metrics::BuildCounter()
                  .Name("taskboard_schedule_start_errors_total")
                  .Help("Schedule fires whose run could not be started (the saved flow was "
                        "deleted, its args no longer bind).")
                  .Register(registry)),
      lag_(metrics::BuildHistogram()
               .Name("taskboard_schedule_fire_lag_seconds")
               .Help("Time from a schedule fire's due time to the start of its run.")
               .Register(registry)),
      schedules_(metrics::BuildGauge()
                     .Name("taskboard_schedules")
                     .Help("Schedules the scheduler holds, of every tenant.")
                     .Register(registry)) {
  for (const char* manual : {"spec", "trigger", "backfill"}) fires_.Add({{"manual", manual}});
  missed_.Add({});
  skipped_.Add({});
  errors_.Add({});
  lag_.Add({}, LagBuckets());
  schedules_.Add({}).Set(0);
}

void ScheduleMetrics::Fired(absl::string_view manual, absl::Duration lag) {
  fires_.Add({{"manual", manual.empty() ? "spec" : std::string(manual)}}).Increment();
  lag_.Add({}, LagBuckets()).Observe(absl::ToDoubleSeconds(lag));
}

void ScheduleMetrics::Missed(int64_t count) {
  missed_.Add({}).Increment(static_cast<double>(count));
}

void ScheduleMetrics::OverlapSkipped() { skipped_.Add({}).Increment(); }

void ScheduleMetrics::StartFailed() { errors_.Add({}).Increment(); }

void ScheduleMetrics::SetSchedules(int64_t count) {
  schedules_.Add({}).Set(static_cast<double>(count));
}

}  // namespace taskboard::engine
