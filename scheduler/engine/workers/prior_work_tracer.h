#ifndef TASKBOARD_SCHEDULER_ENGINE_WORKERS_PRIOR_WORK_TRACER_H_
#define TASKBOARD_SCHEDULER_ENGINE_WORKERS_PRIOR_WORK_TRACER_H_

// Told by the dispatcher which prior work it chose for an attempt of a
// traced, sampled run, so the selection becomes a span under the attempt's
// (traces/run_traces.h implements it; docs/observability.md#scheduler-spans).
// An interface here, so the dispatcher needs no include of the floor above.

#include <cstdint>
#include <string>

#include "scheduler/store/records.pb.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::engine {

class PriorWorkTracer {
 public:
  virtual ~PriorWorkTracer() = default;
  // Called on the engine loop; must not block. `start_us` and `end_us`:
  // when the selection began and ended (unix microseconds).
  virtual void PriorWorkChosen(const store::RunTrace& trace, const std::string& task_id,
                               int32_t attempt, const v1::PriorWorkMeta& meta, int64_t start_us,
                               int64_t end_us) const = 0;
  // Whether spans of a run with `trace` are recorded at all.
  virtual bool Records(const store::RunTrace& trace) const = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_WORKERS_PRIOR_WORK_TRACER_H_
