// Scheduler.ListApprovals / DecideApproval (docs/approvals.md): the caller's
// tenant bounds what it sees and decides; the engine checks the approvers.

#include <string>
#include <utility>

#include "scheduler/server/grpc_status.h"
#include "scheduler/server/scheduler_service.h"

namespace taskboard::server {
namespace {

// Who decides: the token's name, or "local" when authentication is off
// (there is no identity, so the approvers are not checked).
engine::Approver ApproverOf(const auth::Caller& caller) {
  engine::Approver who;
  if (!caller.principal.has_value()) {
    who.name = "local";
    who.admin = true;
    who.unchecked = true;
    return who;
  }
  who.name = caller.principal->name;
  who.admin = caller.principal->role == auth::Role::kAdmin;
  return who;
}

}  // namespace

grpc::ServerUnaryReactor* SchedulerService::ListApprovals(grpc::CallbackServerContext* context,
                                                          const v1::ListApprovalsRequest* request,
                                                          v1::ListApprovalsResponse* response) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("ListApprovals"), request);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (!caller.ok()) {
    reactor->Finish(ToGrpcStatus(caller.status()));
    return reactor;
  }
  engine()->ListApprovals(caller->visible_tenant(),
                          [reactor, response](std::vector<v1::PendingApproval> pending) {
                            for (v1::PendingApproval& row : pending) {
                              *response->add_approvals() = std::move(row);
                            }
                            reactor->Finish(grpc::Status::OK);
                          });
  return reactor;
}

grpc::ServerUnaryReactor* SchedulerService::DecideApproval(grpc::CallbackServerContext* context,
                                                           const v1::DecideApprovalRequest* request,
                                                           v1::DecideApprovalResponse* response) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("DecideApproval"), request);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (!caller.ok()) {
    reactor->Finish(ToGrpcStatus(caller.status()));
    return reactor;
  }
  engine::ApprovalAnswer answer;
  answer.decision = request->decision();
  answer.choice = request->choice();
  answer.values.insert(request->values().begin(), request->values().end());
  answer.comment = request->comment();
  answer.edited_plan = request->edited_plan();
  WhenVisible(reactor, request->run_id(), caller->visible_tenant(),
              [this, reactor, request, response, answer = std::move(answer),
               who = ApproverOf(*caller)]() mutable {
                engine()->DecideApproval(request->run_id(), request->step_id(), std::move(answer),
                                         std::move(who),
                                         [reactor, response](absl::StatusOr<v1::Task> task) {
                                           if (task.ok()) *response->mutable_task() = *task;
                                           reactor->Finish(ToGrpcStatus(task.status()));
                                         });
              });
  return reactor;
}

}  // namespace taskboard::server
