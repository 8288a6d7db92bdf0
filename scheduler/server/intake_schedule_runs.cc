#include "scheduler/server/intake_schedule_runs.h"

#include <utility>

#include "scheduler/flow/proto_value.h"
#include "scheduler/server/run_access.h"

namespace taskboard::server {

absl::StatusOr<engine::SubmitRequest> IntakeScheduleRuns::PrepareSaved(
    const std::string& tenant, const std::string& flow, std::optional<int64_t> version,
    const Json& args, const std::map<std::string, std::string>& labels,
    const std::string& label_key, const std::string& label_value, int64_t run_timeout_seconds,
    const std::string& idempotency_key) {
  v1::SubmitRunRequest request;
  request.mutable_saved()->set_name(flow);
  request.mutable_saved()->set_version(version.value_or(0));
  *request.mutable_args() = flow::JsonToProtoValue(args).struct_value();
  for (const auto& [key, value] : labels) (*request.mutable_labels())[key] = value;
  if (!request.labels().contains(label_key)) (*request.mutable_labels())[label_key] = label_value;
  request.set_run_timeout_seconds(run_timeout_seconds);
  absl::StatusOr<engine::SubmitRequest> submit = PrepareSubmit(request, tenant, *saved_, limits_);
  if (!submit.ok()) return submit.status();
  // Only a schedule passes a deadline of its own: `taskboard show` names it.
  if (run_timeout_seconds > 0) submit->run_timeout_source = v1::RUN_DEADLINE_SOURCE_SCHEDULE;
  submit->tenant = tenant;
  if (!idempotency_key.empty()) {
    submit->idempotency_key = ScopedIdempotencyKey(tenant, idempotency_key);
  }
  return submit;
}

absl::StatusOr<engine::SubmitRequest> IntakeScheduleRuns::Prepare(
    const std::string& tenant, const schedules::ScheduleDefinition& definition,
    const std::string& idempotency_key) {
  return PrepareSaved(tenant, definition.flow, definition.flow_version, definition.args,
                      definition.labels, "schedule", definition.name,
                      definition.run_timeout_seconds, idempotency_key);
}

absl::Status IntakeScheduleRuns::CheckFlow(const std::string& tenant, const std::string& flow,
                                           std::optional<int64_t> version) {
  return saved_->Get(tenant, flow, version.value_or(0)).status();
}

absl::StatusOr<engine::SubmitRequest> IntakeScheduleRuns::Prepare(
    const std::string& tenant, const engine::TriggerRun& run, const std::string& idempotency_key) {
  // A trigger's runs are bounded by their flow's runTimeoutSeconds alone.
  return PrepareSaved(tenant, run.flow, run.flow_version, run.args, run.labels, "trigger",
                      run.trigger, /*run_timeout_seconds=*/0, idempotency_key);
}

}  // namespace taskboard::server
