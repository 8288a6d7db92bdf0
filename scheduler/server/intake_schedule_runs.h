#ifndef TASKBOARD_SCHEDULER_SERVER_INTAKE_SCHEDULE_RUNS_H_
#define TASKBOARD_SCHEDULER_SERVER_INTAKE_SCHEDULE_RUNS_H_

// The runs schedules start, made by the same intake as SubmitRun's
// (flow_intake.h): a fire of a schedule is a SubmitRun of its saved flow,
// with its args and labels, by its tenant, under the fire's idempotency key
// scoped to the tenant (run_access.h). So a schedule's run obeys every
// limit a submitted run does, the ones in force when it fires. A trigger's
// run (engine/triggers/) is made the same way, labelled `trigger: <name>`.

#include <string>

#include "scheduler/engine/runs/saved_flows.h"
#include "scheduler/engine/schedules/schedule_run_source.h"
#include "scheduler/engine/triggers/trigger_run_source.h"
#include "scheduler/server/flow_intake.h"

namespace taskboard::server {

class IntakeScheduleRuns final : public engine::ScheduleRunSource, public engine::TriggerRunSource {
 public:
  // `saved` outlives this.
  IntakeScheduleRuns(engine::SavedFlows* saved, IntakeLimits limits)
      : saved_(saved), limits_(std::move(limits)) {}

  // PrepareSubmit's errors. Runs get the label `schedule: <name>` unless
  // the schedule's labels set `schedule` themselves.
  absl::StatusOr<engine::SubmitRequest> Prepare(const std::string& tenant,
                                                const schedules::ScheduleDefinition& definition,
                                                const std::string& idempotency_key) override;

  // SavedFlows::Get's NOT_FOUND.
  absl::Status CheckFlow(const std::string& tenant, const std::string& flow,
                         std::optional<int64_t> version) override;
  // PrepareSubmit's errors. Runs get the label `trigger: <name>` unless the
  // trigger's labels set `trigger` themselves.
  absl::StatusOr<engine::SubmitRequest> Prepare(const std::string& tenant,
                                                const engine::TriggerRun& run,
                                                const std::string& idempotency_key) override;

 private:
  // One SubmitRun of a saved flow by `tenant`, labelled `label_key: label_value`,
  // with SubmitRun's run deadline (0: the flow's alone).
  absl::StatusOr<engine::SubmitRequest> PrepareSaved(
      const std::string& tenant, const std::string& flow, std::optional<int64_t> version,
      const Json& args, const std::map<std::string, std::string>& labels,
      const std::string& label_key, const std::string& label_value, int64_t run_timeout_seconds,
      const std::string& idempotency_key);

  engine::SavedFlows* const saved_;
  const IntakeLimits limits_;
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_INTAKE_SCHEDULE_RUNS_H_
