#include "scheduler/server/audited_calls.h"

#include "absl/strings/str_cat.h"
#include "scheduler/ha/replication.pb.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::server {
namespace {

template <typename T>
const T& As(const void* message) {
  return *static_cast<const T*>(message);
}

void SubmitRequest(const void* message, AuditFacts& facts) {
  const auto& request = As<v1::SubmitRunRequest>(message);
  if (request.has_saved()) {
    facts.detail = absl::StrCat("flow=", request.saved().name());
  } else if (request.has_spec() && !request.spec().name().empty()) {
    facts.detail = absl::StrCat("flow=", request.spec().name());
  }
}
void SubmitResponse(const void* message, AuditFacts& facts) {
  facts.target = As<v1::SubmitRunResponse>(message).run_id();
}
void CancelRequest(const void* message, AuditFacts& facts) {
  const auto& request = As<v1::CancelRunRequest>(message);
  facts.target = request.run_id();
  if (!request.reason().empty()) facts.detail = absl::StrCat("reason=", request.reason());
}
void ResumeRequest(const void* message, AuditFacts& facts) {
  const auto& request = As<v1::ResumeRunRequest>(message);
  facts.target = request.run_id();
  // A new budget is the budget change the trail must show.
  if (request.has_budget_usd()) absl::StrAppend(&facts.detail, "budget_usd=", request.budget_usd());
  if (request.has_budget_tokens()) {
    absl::StrAppend(&facts.detail, facts.detail.empty() ? "" : " ",
                    "budget_tokens=", request.budget_tokens());
  }
}
void SaveFlowRequest(const void* message, AuditFacts& facts) {
  const auto& request = As<v1::SaveFlowRequest>(message);
  if (request.has_spec()) facts.target = request.spec().name();
}
void SaveFlowResponse(const void* message, AuditFacts& facts) {
  const auto& flow = As<v1::SaveFlowResponse>(message).flow();
  if (!flow.name().empty()) facts.target = absl::StrCat(flow.name(), "@v", flow.version());
}
void DeleteFlowRequest(const void* message, AuditFacts& facts) {
  facts.target = As<v1::DeleteFlowRequest>(message).name();
}
void DecideRequest(const void* message, AuditFacts& facts) {
  const auto& request = As<v1::DecideApprovalRequest>(message);
  facts.target = absl::StrCat(request.run_id(), "/", request.step_id());
  facts.detail = absl::StrCat("decision=", request.decision());
  if (!request.choice().empty()) absl::StrAppend(&facts.detail, " choice=", request.choice());
}
void DrainRequest(const void* message, AuditFacts& facts) {
  const auto& request = As<v1::DrainWorkerRequest>(message);
  facts.target = request.worker_id();
  if (!request.reason().empty()) facts.detail = absl::StrCat("reason=", request.reason());
}

void SwitchoverRequest(const void* message, AuditFacts& facts) {
  const std::string& to = As<ha::v1::SwitchoverRequest>(message).to();
  facts.target = to.empty() ? std::string("(leader's pick)") : to;
}
void SwitchoverResponse(const void* message, AuditFacts& facts) {
  const auto& response = As<ha::v1::SwitchoverResponse>(message);
  facts.target = response.to();
  facts.detail = absl::StrCat("from=", response.from(), " epoch=", response.epoch());
}
void PromoteRequest(const void* message, AuditFacts& facts) {
  facts.detail = absl::StrCat("force=", As<ha::v1::PromoteReplicaRequest>(message).force());
}
void PromoteResponse(const void* message, AuditFacts& facts) {
  const auto& response = As<ha::v1::PromoteReplicaResponse>(message);
  facts.target = response.replica_id();
  absl::StrAppend(&facts.detail, " may_have_lost_writes=true applied=", response.applied().epoch(),
                  "/", response.applied().index());
}

// Schedules and triggers (docs/schedules.md): the name, and what changed
// with it. A created or updated one is named by its response (the file's
// name is only known once decoded).
template <typename Request>
void NameRequest(const void* message, AuditFacts& facts) {
  facts.target = As<Request>(message).name();
}
void ScheduleResponse(AuditFacts& facts, const v1::Schedule& schedule) {
  facts.target = schedule.name();
  facts.detail = absl::StrCat("flow=", schedule.flow());
}
void CreateScheduleResponse(const void* message, AuditFacts& facts) {
  ScheduleResponse(facts, As<v1::CreateScheduleResponse>(message).schedule());
}
void UpdateScheduleResponse(const void* message, AuditFacts& facts) {
  ScheduleResponse(facts, As<v1::UpdateScheduleResponse>(message).schedule());
}
template <typename Request>
void PauseRequest(const void* message, AuditFacts& facts) {
  const auto& request = As<Request>(message);
  facts.target = request.name();
  if (!request.note().empty()) facts.detail = absl::StrCat("note=", request.note());
}
void TriggerScheduleRequest(const void* message, AuditFacts& facts) {
  const auto& request = As<v1::TriggerScheduleRequest>(message);
  facts.target = request.name();
  if (!request.overlap().empty()) facts.detail = absl::StrCat("overlap=", request.overlap());
}
void TriggerScheduleResponse(const void* message, AuditFacts& facts) {
  const auto& action = As<v1::TriggerScheduleResponse>(message).action();
  absl::StrAppend(&facts.detail, facts.detail.empty() ? "" : " ", "action=", action.action());
  if (!action.run_id().empty()) absl::StrAppend(&facts.detail, " run=", action.run_id());
}
void BackfillRequest(const void* message, AuditFacts& facts) {
  const auto& request = As<v1::BackfillScheduleRequest>(message);
  facts.target = request.name();
  facts.detail =
      absl::StrCat("start=", request.start_time().seconds(), " end=", request.end_time().seconds());
}
void BackfillResponse(const void* message, AuditFacts& facts) {
  absl::StrAppend(&facts.detail,
                  " fires=", As<v1::BackfillScheduleResponse>(message).actions_size());
}
void TriggerResponse(AuditFacts& facts, const v1::Trigger& trigger) {
  facts.target = trigger.name();
  facts.detail = absl::StrCat("event=", trigger.event(), " flow=", trigger.flow());
}
void CreateTriggerResponse(const void* message, AuditFacts& facts) {
  TriggerResponse(facts, As<v1::CreateTriggerResponse>(message).trigger());
}
void UpdateTriggerResponse(const void* message, AuditFacts& facts) {
  TriggerResponse(facts, As<v1::UpdateTriggerResponse>(message).trigger());
}
// An event starts runs: the trail names it and counts them (each delivery's
// outcome is in the trigger's deliveries, docs/schedules.md#deliveries).
void PublishRequest(const void* message, AuditFacts& facts) {
  facts.target = As<v1::PublishEventRequest>(message).name();
}
void PublishResponse(const void* message, AuditFacts& facts) {
  const auto& response = As<v1::PublishEventResponse>(message);
  facts.detail = absl::StrCat("triggers=", response.outcomes_size(), " started=", response.started());
}

struct Entry {
  absl::string_view method;
  AuditedCall call;
};

constexpr Entry kAudited[] = {
    {"/taskboard.v1.Scheduler/SubmitRun", {"Scheduler.SubmitRun", SubmitRequest, SubmitResponse}},
    {"/taskboard.v1.Scheduler/CancelRun", {"Scheduler.CancelRun", CancelRequest, nullptr}},
    {"/taskboard.v1.Scheduler/ResumeRun", {"Scheduler.ResumeRun", ResumeRequest, nullptr}},
    {"/taskboard.v1.Scheduler/SaveFlow", {"Scheduler.SaveFlow", SaveFlowRequest, SaveFlowResponse}},
    {"/taskboard.v1.Scheduler/DeleteFlow", {"Scheduler.DeleteFlow", DeleteFlowRequest, nullptr}},
    {"/taskboard.v1.Scheduler/DecideApproval",
     {"Scheduler.DecideApproval", DecideRequest, nullptr}},
    {"/taskboard.v1.Scheduler/DrainWorker", {"Scheduler.DrainWorker", DrainRequest, nullptr}},
    {"/taskboard.v1.Scheduler/CreateSchedule",
     {"Scheduler.CreateSchedule", nullptr, CreateScheduleResponse}},
    {"/taskboard.v1.Scheduler/UpdateSchedule",
     {"Scheduler.UpdateSchedule", nullptr, UpdateScheduleResponse}},
    {"/taskboard.v1.Scheduler/DeleteSchedule",
     {"Scheduler.DeleteSchedule", NameRequest<v1::DeleteScheduleRequest>, nullptr}},
    {"/taskboard.v1.Scheduler/PauseSchedule",
     {"Scheduler.PauseSchedule", PauseRequest<v1::PauseScheduleRequest>, nullptr}},
    {"/taskboard.v1.Scheduler/UnpauseSchedule",
     {"Scheduler.UnpauseSchedule", PauseRequest<v1::UnpauseScheduleRequest>, nullptr}},
    {"/taskboard.v1.Scheduler/TriggerSchedule",
     {"Scheduler.TriggerSchedule", TriggerScheduleRequest, TriggerScheduleResponse}},
    {"/taskboard.v1.Scheduler/BackfillSchedule",
     {"Scheduler.BackfillSchedule", BackfillRequest, BackfillResponse}},
    {"/taskboard.v1.Scheduler/CreateTrigger",
     {"Scheduler.CreateTrigger", nullptr, CreateTriggerResponse}},
    {"/taskboard.v1.Scheduler/UpdateTrigger",
     {"Scheduler.UpdateTrigger", nullptr, UpdateTriggerResponse}},
    {"/taskboard.v1.Scheduler/DeleteTrigger",
     {"Scheduler.DeleteTrigger", NameRequest<v1::DeleteTriggerRequest>, nullptr}},
    {"/taskboard.v1.Scheduler/PublishEvent",
     {"Scheduler.PublishEvent", PublishRequest, PublishResponse}},
    {"/taskboard.ha.v1.Backup/Backup", {"Backup.Backup", nullptr, nullptr}},
    {"/taskboard.ha.v1.ReplicaAdmin/Switchover",
     {"ReplicaAdmin.Switchover", SwitchoverRequest, SwitchoverResponse}},
    {"/taskboard.ha.v1.ReplicaAdmin/PromoteReplica",
     {"ReplicaAdmin.PromoteReplica", PromoteRequest, PromoteResponse}},
};

}  // namespace

const AuditedCall* FindAuditedCall(absl::string_view method) {
  for (const Entry& entry : kAudited) {
    if (entry.method == method) return &entry.call;
  }
  return nullptr;
}

std::string AuditMethodName(absl::string_view method) {
  // "/taskboard.v1.Scheduler/GetRun": the service's last name, then the method.
  const size_t slash = method.rfind('/');
  if (slash == absl::string_view::npos || slash == 0) return std::string(method);
  absl::string_view service = method.substr(0, slash);
  const size_t dot = service.rfind('.');
  if (dot != absl::string_view::npos) service = service.substr(dot + 1);
  if (!service.empty() && service.front() == '/') service.remove_prefix(1);
  return absl::StrCat(service, ".", method.substr(slash + 1));
}

}  // namespace taskboard::server
