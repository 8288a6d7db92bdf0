// Scheduler's schedule calls (docs/schedules.md#api): each admits the call,
// runs the engine's schedules on its loop for the caller's tenant
// (schedules are a tenant's own, like its saved flows; an admin token
// manages its own tenant's) and answers once the batch holding the change
// and the runs it started is written.

#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/server/scheduler_service.h"
#include "scheduler/server/tenant_component_call.h"

namespace taskboard::server {
namespace {

absl::Time TimeOf(const google::protobuf::Timestamp& stamp) {
  return absl::FromUnixSeconds(stamp.seconds()) + absl::Nanoseconds(stamp.nanos());
}

}  // namespace

using ScheduleAnswer = absl::StatusOr<v1::Schedule>;

grpc::ServerUnaryReactor* SchedulerService::CreateSchedule(grpc::CallbackServerContext* context,
                                                           const v1::CreateScheduleRequest* request,
                                                           v1::CreateScheduleResponse* response) {
  return OnComponent<engine::Schedules, ScheduleAnswer>(
      context, "CreateSchedule", request,
      [source = request->source()](engine::Schedules& s, const std::string& tenant) {
        return s.Create(tenant, source);
      },
      [response](ScheduleAnswer& answer) { *response->mutable_schedule() = *std::move(answer); });
}

grpc::ServerUnaryReactor* SchedulerService::UpdateSchedule(grpc::CallbackServerContext* context,
                                                           const v1::UpdateScheduleRequest* request,
                                                           v1::UpdateScheduleResponse* response) {
  return OnComponent<engine::Schedules, ScheduleAnswer>(
      context, "UpdateSchedule", request,
      [source = request->source()](engine::Schedules& s, const std::string& tenant) {
        return s.Update(tenant, source);
      },
      [response](ScheduleAnswer& answer) { *response->mutable_schedule() = *std::move(answer); });
}

grpc::ServerUnaryReactor* SchedulerService::DeleteSchedule(grpc::CallbackServerContext* context,
                                                           const v1::DeleteScheduleRequest* request,
                                                           v1::DeleteScheduleResponse* response) {
  return OnComponent<engine::Schedules, absl::Status>(
      context, "DeleteSchedule", request,
      [name = request->name()](engine::Schedules& s, const std::string& tenant) {
        return s.Delete(tenant, name);
      },
      [](absl::Status&) {});
}

grpc::ServerUnaryReactor* SchedulerService::PauseSchedule(grpc::CallbackServerContext* context,
                                                          const v1::PauseScheduleRequest* request,
                                                          v1::PauseScheduleResponse* response) {
  return OnComponent<engine::Schedules, ScheduleAnswer>(
      context, "PauseSchedule", request,
      [name = request->name(), note = request->note()](engine::Schedules& s,
                                                       const std::string& tenant) {
        return s.SetPaused(tenant, name, true, note);
      },
      [response](ScheduleAnswer& answer) { *response->mutable_schedule() = *std::move(answer); });
}

grpc::ServerUnaryReactor* SchedulerService::UnpauseSchedule(
    grpc::CallbackServerContext* context, const v1::UnpauseScheduleRequest* request,
    v1::UnpauseScheduleResponse* response) {
  return OnComponent<engine::Schedules, ScheduleAnswer>(
      context, "UnpauseSchedule", request,
      [name = request->name(), note = request->note()](engine::Schedules& s,
                                                       const std::string& tenant) {
        return s.SetPaused(tenant, name, false, note);
      },
      [response](ScheduleAnswer& answer) { *response->mutable_schedule() = *std::move(answer); });
}

grpc::ServerUnaryReactor* SchedulerService::TriggerSchedule(
    grpc::CallbackServerContext* context, const v1::TriggerScheduleRequest* request,
    v1::TriggerScheduleResponse* response) {
  using Answer = absl::StatusOr<v1::ScheduleAction>;
  return OnComponent<engine::Schedules, Answer>(
      context, "TriggerSchedule", request,
      [name = request->name(), overlap = request->overlap()](engine::Schedules& s,
                                                             const std::string& tenant) {
        return s.Trigger(tenant, name, overlap);
      },
      [response](Answer& answer) { *response->mutable_action() = *std::move(answer); });
}

grpc::ServerUnaryReactor* SchedulerService::BackfillSchedule(
    grpc::CallbackServerContext* context, const v1::BackfillScheduleRequest* request,
    v1::BackfillScheduleResponse* response) {
  using Answer = absl::StatusOr<std::vector<v1::ScheduleAction>>;
  return OnComponent<engine::Schedules, Answer>(
      context, "BackfillSchedule", request,
      [name = request->name(), start = TimeOf(request->start_time()),
       end = TimeOf(request->end_time()),
       overlap = request->overlap()](engine::Schedules& s, const std::string& tenant) {
        return s.Backfill(tenant, name, start, end, overlap);
      },
      [response](Answer& answer) {
        for (v1::ScheduleAction& action : *answer) *response->add_actions() = std::move(action);
      });
}

grpc::ServerUnaryReactor* SchedulerService::DescribeSchedule(
    grpc::CallbackServerContext* context, const v1::DescribeScheduleRequest* request,
    v1::DescribeScheduleResponse* response) {
  return OnComponent<engine::Schedules, ScheduleAnswer>(
      context, "DescribeSchedule", request,
      [name = request->name()](engine::Schedules& s, const std::string& tenant) {
        return s.Describe(tenant, name);
      },
      [response](ScheduleAnswer& answer) { *response->mutable_schedule() = *std::move(answer); });
}

grpc::ServerUnaryReactor* SchedulerService::ListSchedules(grpc::CallbackServerContext* context,
                                                          const v1::ListSchedulesRequest* request,
                                                          v1::ListSchedulesResponse* response) {
  using Answer = absl::StatusOr<std::vector<v1::Schedule>>;
  return OnComponent<engine::Schedules, Answer>(
      context, "ListSchedules", request,
      [](engine::Schedules& s, const std::string& tenant) -> Answer { return s.List(tenant); },
      [response](Answer& answer) {
        for (v1::Schedule& schedule : *answer) *response->add_schedules() = std::move(schedule);
      });
}

}  // namespace taskboard::server
