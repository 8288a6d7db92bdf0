// Scheduler.ListAuditEvents (docs/audit.md#reading): a client token reads
// its own tenant's records, an admin any tenant's or all of them.

#include <optional>
#include <string>
#include <utility>

#include "scheduler/audit/audit_query.h"
#include "scheduler/audit/audit_reader.h"
#include "scheduler/server/grpc_status.h"
#include "scheduler/server/scheduler_service.h"

namespace taskboard::server {

grpc::ServerUnaryReactor* SchedulerService::ListAuditEvents(
    grpc::CallbackServerContext* context, const v1::ListAuditEventsRequest* request,
    v1::ListAuditEventsResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("ListAuditEvents"), request);
  if (!caller.ok()) {
    reactor->Finish(ToGrpcStatus(caller.status()));
    return reactor;
  }
  absl::StatusOr<std::optional<std::string>> tenant = caller->TenantToRead(request->tenant());
  if (!tenant.ok()) {
    reactor->Finish(ToGrpcStatus(tenant.status()));
    return reactor;
  }
  absl::StatusOr<audit::AuditQuery> query = audit::QueryOf(*request, *std::move(tenant));
  if (!query.ok()) {
    reactor->Finish(ToGrpcStatus(query.status()));
    return reactor;
  }
  pool_->Run([this, reactor, response, query = *std::move(query)] {
    absl::StatusOr<v1::ListAuditEventsResponse> page =
        audit::ReadAuditPage(engine()->store(), query);
    if (page.ok()) *response = *std::move(page);
    reactor->Finish(ToGrpcStatus(page.status()));
  });
  return reactor;
}

}  // namespace taskboard::server
