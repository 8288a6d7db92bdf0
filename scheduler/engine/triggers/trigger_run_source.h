#ifndef TASKBOARD_SCHEDULER_ENGINE_TRIGGERS_TRIGGER_RUN_SOURCE_H_
#define TASKBOARD_SCHEDULER_ENGINE_TRIGGERS_TRIGGER_RUN_SOURCE_H_

// Turns an accepted delivery into the run it submits: the trigger's saved
// flow looked up among the tenant's, the args taken from the event bound and
// checked against the scheduler's limits, exactly as SubmitRun would
// (docs/schedules.md#event-triggers). The server implements it over its flow
// intake, as it does ScheduleRunSource; the engine only asks.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/json.h"
#include "scheduler/engine/runs/run_requests.h"

namespace taskboard::engine {

struct TriggerRun {
  std::string trigger;  // labels the run `trigger: <name>`
  std::string flow;
  std::optional<int64_t> flow_version;
  Json args = Json::object();
  std::map<std::string, std::string> labels;
};

class TriggerRunSource {
 public:
  virtual ~TriggerRunSource() = default;

  // NOT_FOUND for a saved flow (or pinned version) the tenant does not
  // have: CreateTrigger and UpdateTrigger refuse it up front.
  virtual absl::Status CheckFlow(const std::string& tenant, const std::string& flow,
                                 std::optional<int64_t> version) = 0;
  // The request of one delivery's run, with `idempotency_key` (empty: none)
  // scoped to the tenant. Errors as SubmitRun's intake. Called on the
  // engine's loop: must not block on the engine.
  virtual absl::StatusOr<SubmitRequest> Prepare(const std::string& tenant, const TriggerRun& run,
                                                const std::string& idempotency_key) = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_TRIGGERS_TRIGGER_RUN_SOURCE_H_
