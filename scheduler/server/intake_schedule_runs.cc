#include "scheduler/server/intake_schedule_runs.h"

#include <utility>

#include "scheduler/flow/proto_value.h"
#include "scheduler/server/run_access.h"

namespace taskboard::server {

absl::StatusOr<engine::SubmitRequest> IntakeScheduleRuns::Prepare(
    const std::string& tenant, const schedules::ScheduleDefinition& definition,
    const std::string& idempotency_key) {
  v1::SubmitRunRequest request;
  request.mutable_saved()->set_name(definition.flow);
  request.mutable_saved()->set_version(definition.flow_version.value_or(0));
  *request.mutable_args() = flow::JsonToProtoValue(definition.args).struct_value();
  for (const auto& [key, value] : definition.labels) (*request.mutable_labels())[key] = value;
  if (!request.labels().contains("schedule")) {
    (*request.mutable_labels())["schedule"] = definition.name;
  }
  request.set_run_timeout_seconds(definition.run_timeout_seconds);
  absl::StatusOr<engine::SubmitRequest> submit = PrepareSubmit(request, tenant, *saved_, limits_);
  if (!submit.ok()) return submit.status();
  submit->run_timeout_source = v1::RUN_DEADLINE_SOURCE_SCHEDULE;
  submit->tenant = tenant;
  submit->idempotency_key = ScopedIdempotencyKey(tenant, idempotency_key);
  return submit;
}

}  // namespace taskboard::server
