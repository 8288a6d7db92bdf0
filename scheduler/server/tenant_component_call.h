#ifndef TASKBOARD_SCHEDULER_SERVER_TENANT_COMPONENT_CALL_H_
#define TASKBOARD_SCHEDULER_SERVER_TENANT_COMPONENT_CALL_H_

// SchedulerService::OnComponent, the frame of every schedule call
// (scheduler_schedules.cc) and of every trigger call but PublishEvent
// (scheduler_triggers.cc). Shared because both are served alike: admitted
// by the gate, run on the engine's loop on the caller's tenant's own files
// (schedules and triggers are a tenant's own, like its saved flows) and
// answered once the batch holding the change is written (docs/schedules.md#api).
// Only those two files include this.

#include <string>
#include <utility>

#include "scheduler/server/engine_answer.h"
#include "scheduler/server/grpc_status.h"
#include "scheduler/server/scheduler_service.h"

namespace taskboard::server {

template <typename Component, typename Answer, typename Request>
grpc::ServerUnaryReactor* SchedulerService::OnComponent(
    grpc::CallbackServerContext* context, const char* method, const Request* request,
    std::function<Answer(Component&, const std::string& tenant)> work,
    std::function<void(Answer&)> fill) {
  absl::StatusOr<auth::Caller> caller = gate_->Admit(*context, SchedulerMethod(method), request);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (!caller.ok()) {
    reactor->Finish(ToGrpcStatus(caller.status()));
    return reactor;
  }
  engine()->OnComponent<Component, Answer>(
      [work = std::move(work), tenant = caller->tenant()](Component& component) {
        return work(component, tenant);
      },
      [reactor, fill = std::move(fill)](Answer answer) { FinishAnswer(reactor, answer, fill); });
  return reactor;
}

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_TENANT_COMPONENT_CALL_H_
