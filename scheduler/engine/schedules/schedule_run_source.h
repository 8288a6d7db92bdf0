#ifndef TASKBOARD_SCHEDULER_ENGINE_SCHEDULES_SCHEDULE_RUN_SOURCE_H_
#define TASKBOARD_SCHEDULER_ENGINE_SCHEDULES_SCHEDULE_RUN_SOURCE_H_

// Turns a schedule's definition into the run one of its fires submits: the
// saved flow looked up among the tenant's, its args bound and checked
// against the scheduler's limits, exactly as SubmitRun would
// (docs/schedules.md#exactly-once). The server implements it over its flow
// intake; the engine only asks, so it stays free of intake rules and gRPC.

#include <string>

#include "absl/status/statusor.h"
#include "scheduler/engine/runs/run_requests.h"
#include "scheduler/schedules/schedule_decoder.h"

namespace taskboard::engine {

class ScheduleRunSource {
 public:
  virtual ~ScheduleRunSource() = default;

  // The request of one fire of `definition`, owned by `tenant`, with
  // `idempotency_key` scoped to the tenant as SubmitRun scopes keys.
  // NOT_FOUND for a saved flow (or pinned version) that no longer exists,
  // INVALID_ARGUMENT for args the flow no longer accepts, RESOURCE_EXHAUSTED
  // for a flow over the limits. Called on the engine's loop: must not block
  // on the engine.
  virtual absl::StatusOr<SubmitRequest> Prepare(const std::string& tenant,
                                                const schedules::ScheduleDefinition& definition,
                                                const std::string& idempotency_key) = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_SCHEDULES_SCHEDULE_RUN_SOURCE_H_
