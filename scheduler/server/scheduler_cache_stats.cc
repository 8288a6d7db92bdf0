// Scheduler.GetCacheStats (docs/tool-cache.md "Seeing the cache"): the
// caller's tenant bounds the rows, as for GetUsage.

#include <optional>
#include <string>
#include <utility>

#include "scheduler/server/grpc_status.h"
#include "scheduler/server/run_access.h"
#include "scheduler/server/scheduler_service.h"

namespace taskboard::server {

grpc::ServerUnaryReactor* SchedulerService::GetCacheStats(grpc::CallbackServerContext* context,
                                                          const v1::GetCacheStatsRequest* request,
                                                          v1::GetCacheStatsResponse* response) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("GetCacheStats"), request);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (!caller.ok()) {
    reactor->Finish(ToGrpcStatus(caller.status()));
    return reactor;
  }
  absl::StatusOr<std::optional<std::string>> tenant = caller->TenantToRead(request->tenant());
  if (!tenant.ok()) {
    reactor->Finish(ToGrpcStatus(tenant.status()));
    return reactor;
  }
  engine()->GetCacheStats(*std::move(tenant), [reactor, response](v1::GetCacheStatsResponse stats) {
    *response = std::move(stats);
    reactor->Finish(grpc::Status::OK);
  });
  return reactor;
}

}  // namespace taskboard::server
