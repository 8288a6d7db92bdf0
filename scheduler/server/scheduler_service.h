#ifndef TASKBOARD_SCHEDULER_SERVER_SCHEDULER_SERVICE_H_
#define TASKBOARD_SCHEDULER_SERVER_SCHEDULER_SERVICE_H_

// The client API (taskboard.v1.Scheduler) on gRPC's callback API. Thin: each
// handler translates the request, posts to the engine (run changes) or the
// blocking pool (store reads), and finishes the reactor from the callback
// with the status converted once. No handler blocks a gRPC thread.
//
// Every handler first admits the call (call_gate.h: token, role, size);
// run-level handlers then hide runs of other tenants (run_access.h).

#include <functional>
#include <optional>
#include <string>

#include "scheduler/engine/engine.h"
#include "scheduler/engine/runs/saved_flows.h"
#include "scheduler/server/blocking_pool.h"
#include "scheduler/server/call_gate.h"
#include "scheduler/server/engine_handle.h"
#include "scheduler/server/flow_intake.h"
#include "taskboard/v1/scheduler.grpc.pb.h"

namespace taskboard::server {

class SchedulerService final : public v1::Scheduler::CallbackService {
 public:
  // Serves from `handle`'s engine and saved flows; every handler's Admit
  // (`gate`, which consults the same handle) makes sure they are published.
  // Everything outlives the service.
  SchedulerService(const EngineHandle* handle, BlockingPool* pool, IntakeLimits limits,
                   const CallGate* gate)
      : handle_(handle), pool_(pool), limits_(limits), gate_(gate) {}

  grpc::ServerUnaryReactor* SubmitRun(grpc::CallbackServerContext* context,
                                      const v1::SubmitRunRequest* request,
                                      v1::SubmitRunResponse* response) override;
  grpc::ServerUnaryReactor* GetRun(grpc::CallbackServerContext* context,
                                   const v1::GetRunRequest* request,
                                   v1::GetRunResponse* response) override;
  grpc::ServerUnaryReactor* ListRuns(grpc::CallbackServerContext* context,
                                     const v1::ListRunsRequest* request,
                                     v1::ListRunsResponse* response) override;
  grpc::ServerWriteReactor<v1::WatchRunResponse>* WatchRun(
      grpc::CallbackServerContext* context, const v1::WatchRunRequest* request) override;
  grpc::ServerUnaryReactor* CancelRun(grpc::CallbackServerContext* context,
                                      const v1::CancelRunRequest* request,
                                      v1::CancelRunResponse* response) override;
  grpc::ServerUnaryReactor* ResumeRun(grpc::CallbackServerContext* context,
                                      const v1::ResumeRunRequest* request,
                                      v1::ResumeRunResponse* response) override;
  grpc::ServerUnaryReactor* ValidateFlow(grpc::CallbackServerContext* context,
                                         const v1::ValidateFlowRequest* request,
                                         v1::ValidateFlowResponse* response) override;
  grpc::ServerUnaryReactor* SaveFlow(grpc::CallbackServerContext* context,
                                     const v1::SaveFlowRequest* request,
                                     v1::SaveFlowResponse* response) override;
  grpc::ServerUnaryReactor* GetFlow(grpc::CallbackServerContext* context,
                                    const v1::GetFlowRequest* request,
                                    v1::GetFlowResponse* response) override;
  grpc::ServerUnaryReactor* ListFlows(grpc::CallbackServerContext* context,
                                      const v1::ListFlowsRequest* request,
                                      v1::ListFlowsResponse* response) override;
  grpc::ServerUnaryReactor* DeleteFlow(grpc::CallbackServerContext* context,
                                       const v1::DeleteFlowRequest* request,
                                       v1::DeleteFlowResponse* response) override;
  grpc::ServerUnaryReactor* GetTask(grpc::CallbackServerContext* context,
                                    const v1::GetTaskRequest* request,
                                    v1::GetTaskResponse* response) override;
  grpc::ServerUnaryReactor* ListWorkers(grpc::CallbackServerContext* context,
                                        const v1::ListWorkersRequest* request,
                                        v1::ListWorkersResponse* response) override;
  grpc::ServerUnaryReactor* DrainWorker(grpc::CallbackServerContext* context,
                                        const v1::DrainWorkerRequest* request,
                                        v1::DrainWorkerResponse* response) override;
  grpc::ServerUnaryReactor* GetUsage(grpc::CallbackServerContext* context,
                                     const v1::GetUsageRequest* request,
                                     v1::GetUsageResponse* response) override;
  // scheduler_cache_stats.cc
  grpc::ServerUnaryReactor* GetCacheStats(grpc::CallbackServerContext* context,
                                          const v1::GetCacheStatsRequest* request,
                                          v1::GetCacheStatsResponse* response) override;
  // Approvals (scheduler_approvals.cc, docs/approvals.md).
  grpc::ServerUnaryReactor* ListApprovals(grpc::CallbackServerContext* context,
                                          const v1::ListApprovalsRequest* request,
                                          v1::ListApprovalsResponse* response) override;
  grpc::ServerUnaryReactor* DecideApproval(grpc::CallbackServerContext* context,
                                           const v1::DecideApprovalRequest* request,
                                           v1::DecideApprovalResponse* response) override;
  // The audit trail (scheduler_audit.cc, docs/audit.md).
  grpc::ServerUnaryReactor* ListAuditEvents(grpc::CallbackServerContext* context,
                                            const v1::ListAuditEventsRequest* request,
                                            v1::ListAuditEventsResponse* response) override;
  // Schedules (scheduler_schedules.cc, docs/schedules.md): the caller's
  // tenant owns them; the engine decides on its loop.
  grpc::ServerUnaryReactor* CreateSchedule(grpc::CallbackServerContext* context,
                                           const v1::CreateScheduleRequest* request,
                                           v1::CreateScheduleResponse* response) override;
  grpc::ServerUnaryReactor* UpdateSchedule(grpc::CallbackServerContext* context,
                                           const v1::UpdateScheduleRequest* request,
                                           v1::UpdateScheduleResponse* response) override;
  grpc::ServerUnaryReactor* DeleteSchedule(grpc::CallbackServerContext* context,
                                           const v1::DeleteScheduleRequest* request,
                                           v1::DeleteScheduleResponse* response) override;
  grpc::ServerUnaryReactor* PauseSchedule(grpc::CallbackServerContext* context,
                                          const v1::PauseScheduleRequest* request,
                                          v1::PauseScheduleResponse* response) override;
  grpc::ServerUnaryReactor* UnpauseSchedule(grpc::CallbackServerContext* context,
                                            const v1::UnpauseScheduleRequest* request,
                                            v1::UnpauseScheduleResponse* response) override;
  grpc::ServerUnaryReactor* TriggerSchedule(grpc::CallbackServerContext* context,
                                            const v1::TriggerScheduleRequest* request,
                                            v1::TriggerScheduleResponse* response) override;
  grpc::ServerUnaryReactor* BackfillSchedule(grpc::CallbackServerContext* context,
                                             const v1::BackfillScheduleRequest* request,
                                             v1::BackfillScheduleResponse* response) override;
  grpc::ServerUnaryReactor* DescribeSchedule(grpc::CallbackServerContext* context,
                                             const v1::DescribeScheduleRequest* request,
                                             v1::DescribeScheduleResponse* response) override;
  grpc::ServerUnaryReactor* ListSchedules(grpc::CallbackServerContext* context,
                                          const v1::ListSchedulesRequest* request,
                                          v1::ListSchedulesResponse* response) override;

  // Triggers (scheduler_triggers.cc, docs/schedules.md#event-triggers).
  grpc::ServerUnaryReactor* CreateTrigger(grpc::CallbackServerContext* context,
                                          const v1::CreateTriggerRequest* request,
                                          v1::CreateTriggerResponse* response) override;
  grpc::ServerUnaryReactor* UpdateTrigger(grpc::CallbackServerContext* context,
                                          const v1::UpdateTriggerRequest* request,
                                          v1::UpdateTriggerResponse* response) override;
  grpc::ServerUnaryReactor* GetTrigger(grpc::CallbackServerContext* context,
                                       const v1::GetTriggerRequest* request,
                                       v1::GetTriggerResponse* response) override;
  grpc::ServerUnaryReactor* ListTriggers(grpc::CallbackServerContext* context,
                                         const v1::ListTriggersRequest* request,
                                         v1::ListTriggersResponse* response) override;
  grpc::ServerUnaryReactor* DeleteTrigger(grpc::CallbackServerContext* context,
                                          const v1::DeleteTriggerRequest* request,
                                          v1::DeleteTriggerResponse* response) override;
  grpc::ServerUnaryReactor* PublishEvent(grpc::CallbackServerContext* context,
                                         const v1::PublishEventRequest* request,
                                         v1::PublishEventResponse* response) override;
  grpc::ServerUnaryReactor* ListTriggerDeliveries(
      grpc::CallbackServerContext* context, const v1::ListTriggerDeliveriesRequest* request,
      v1::ListTriggerDeliveriesResponse* response) override;

 private:
  // Admits a schedule or trigger call as `method` and runs `work` on the
  // engine's loop with `Component` (engine::Schedules, engine::Triggers) and
  // the caller's tenant; `fill` writes an OK answer into the response.
  // Finishes the reactor either way. Defined in tenant_component_call.h.
  template <typename Component, typename Answer, typename Request>
  grpc::ServerUnaryReactor* OnComponent(
      grpc::CallbackServerContext* context, const char* method, const Request* request,
      std::function<Answer(Component&, const std::string& tenant)> work,
      std::function<void(Answer&)> fill);

  // Calls `then` once run `run_id` is visible to `tenant` (run_access.h),
  // at once when every tenant is; else finishes `reactor` with NOT_FOUND.
  void WhenVisible(grpc::ServerUnaryReactor* reactor, const std::string& run_id,
                   std::optional<std::string> tenant, std::function<void()> then);

  // After a successful Admit: never null.
  engine::Engine* engine() const { return handle_->engine(); }
  engine::SavedFlows* saved() const { return handle_->saved(); }

  const EngineHandle* handle_;
  BlockingPool* pool_;
  IntakeLimits limits_;
  const CallGate* gate_;
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_SCHEDULER_SERVICE_H_
