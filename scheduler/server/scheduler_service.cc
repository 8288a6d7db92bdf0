#include "scheduler/server/scheduler_service.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/kinds/flow_kind.h"
#include "scheduler/flow/phase_graph.h"
#include "scheduler/governance/budget.h"
#include "scheduler/server/caller_trace_context.h"
#include "scheduler/server/grpc_status.h"
#include "scheduler/server/run_access.h"
#include "scheduler/server/watch_reactor.h"

namespace taskboard::server {
namespace {

// How long a saved flow's reply waits for the followers' acks: the call's
// deadline, at most 30 s.
absl::Time ReplicatedDeadline(const grpc::CallbackServerContext& context) {
  return std::min(absl::FromChrono(context.deadline()), absl::Now() + absl::Seconds(30));
}

// Runs `read` on the blocking pool and finishes `reactor` with its status.
template <typename Read>
void FinishOnPool(BlockingPool* pool, grpc::ServerUnaryReactor* reactor, Read read) {
  pool->Run([reactor, read = std::move(read)]() mutable { reactor->Finish(ToGrpcStatus(read())); });
}

template <typename Read>
grpc::ServerUnaryReactor* FinishFromPool(grpc::CallbackServerContext* context, BlockingPool* pool,
                                         Read read) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  FinishOnPool(pool, reactor, std::move(read));
  return reactor;
}

// FinishFromPool once the tasks of `run_id` are written, when SubmitRun has
// just accepted it (decision 121): the read takes a pool thread only once
// there is something to read, so reads waiting for a large board hold up
// nothing else on the pool.
template <typename Read>
grpc::ServerUnaryReactor* FinishFromPoolOnceCreated(grpc::CallbackServerContext* context,
                                                    BlockingPool* pool, engine::Engine& engine,
                                                    const std::string& run_id, Read read) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  engine.WhenTasksCreated(run_id, [pool, reactor, read = std::move(read)]() mutable {
    FinishOnPool(pool, reactor, std::move(read));
  });
  return reactor;
}

grpc::ServerUnaryReactor* Refuse(grpc::CallbackServerContext* context, const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

// A WatchRun refused before it starts (not admitted).
class RefusedWatch final : public grpc::ServerWriteReactor<v1::WatchRunResponse> {
 public:
  explicit RefusedWatch(const absl::Status& status) { Finish(ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

void SchedulerService::WhenVisible(grpc::ServerUnaryReactor* reactor, const std::string& run_id,
                                   std::optional<std::string> tenant, std::function<void()> then) {
  if (!tenant.has_value()) return then();
  pool_->Run([this, reactor, run_id, tenant = std::move(tenant), then = std::move(then)] {
    absl::Status visible = CheckRunVisible(engine()->store(), run_id, tenant);
    if (!visible.ok()) return reactor->Finish(ToGrpcStatus(visible));
    then();
  });
}

grpc::ServerUnaryReactor* SchedulerService::SubmitRun(grpc::CallbackServerContext* context,
                                                      const v1::SubmitRunRequest* request,
                                                      v1::SubmitRunResponse* response) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("SubmitRun"), request);
  if (!caller.ok()) return Refuse(context, caller.status());
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  // Parsing and validating is CPU work bounded by the size limits; a saved
  // flow needs a store read, so it all runs on the pool.
  pool_->Run([this, reactor, request, response, tenant = caller->tenant(),
               trace_parent = CallerTraceContext(*context)] {
    // A saved flow is read from the acknowledged view (saved_flows.h).
    if (request->has_saved()) engine()->RefreshReads();
    absl::StatusOr<engine::SubmitRequest> submit =
        PrepareSubmit(*request, tenant, *saved(), limits_);
    if (!submit.ok()) return reactor->Finish(ToGrpcStatus(submit.status()));
    submit->tenant = tenant;
    submit->trace_parent = trace_parent;
    submit->idempotency_key = ScopedIdempotencyKey(tenant, submit->idempotency_key);
    engine()->Submit(*std::move(submit),
                     [reactor, response](absl::StatusOr<engine::SubmitResult> result) {
                       if (result.ok()) {
                         response->set_run_id(result->run_id);
                         response->set_existing(result->existing);
                       }
                       reactor->Finish(ToGrpcStatus(result.status()));
                     });
  });
  return reactor;
}

grpc::ServerUnaryReactor* SchedulerService::GetRun(grpc::CallbackServerContext* context,
                                                   const v1::GetRunRequest* request,
                                                   v1::GetRunResponse* response) {
  absl::StatusOr<auth::Caller> caller = gate_->Admit(*context, SchedulerMethod("GetRun"), request);
  if (!caller.ok()) return Refuse(context, caller.status());
  return FinishFromPoolOnceCreated(
      context, pool_, *engine(), request->run_id(),
      [this, request, response, tenant = caller->visible_tenant()]() -> absl::Status {
        if (absl::Status visible = CheckRunVisible(engine()->store(), request->run_id(), tenant);
            !visible.ok()) {
          return visible;
        }
        absl::StatusOr<v1::Run> run =
            engine::ReadRun(engine()->store(), request->run_id(), !request->without_tasks());
        if (!run.ok()) return run.status();
        *response->mutable_run() = *std::move(run);
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* SchedulerService::ListRuns(grpc::CallbackServerContext* context,
                                                     const v1::ListRunsRequest* request,
                                                     v1::ListRunsResponse* response) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("ListRuns"), request);
  if (!caller.ok()) return Refuse(context, caller.status());
  absl::StatusOr<std::optional<std::string>> tenant = caller->TenantToRead(request->tenant());
  if (!tenant.ok()) return Refuse(context, tenant.status());
  return FinishFromPool(context, pool_,
                        [this, request, response, tenant = *std::move(tenant)]() -> absl::Status {
                          absl::StatusOr<v1::ListRunsResponse> runs =
                              engine::ListRuns(engine()->store(), *request, tenant);
                          if (!runs.ok()) return runs.status();
                          *response = *std::move(runs);
                          return absl::OkStatus();
                        });
}

grpc::ServerWriteReactor<v1::WatchRunResponse>* SchedulerService::WatchRun(
    grpc::CallbackServerContext* context, const v1::WatchRunRequest* request) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("WatchRun"), request);
  if (!caller.ok()) return new RefusedWatch(caller.status());
  return WatchReactor::Start(engine(), pool_, *request, caller->visible_tenant(), gate_, context);
}

grpc::ServerUnaryReactor* SchedulerService::CancelRun(grpc::CallbackServerContext* context,
                                                      const v1::CancelRunRequest* request,
                                                      v1::CancelRunResponse* response) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("CancelRun"), request);
  if (!caller.ok()) return Refuse(context, caller.status());
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  WhenVisible(reactor, request->run_id(), caller->visible_tenant(),
              [this, reactor, request, response] {
                engine()->Cancel(request->run_id(), request->reason(),
                                 [reactor, response](absl::StatusOr<v1::RunStatus> status) {
                                   if (status.ok()) response->set_status(*status);
                                   reactor->Finish(ToGrpcStatus(status.status()));
                                 });
              });
  return reactor;
}

grpc::ServerUnaryReactor* SchedulerService::ResumeRun(grpc::CallbackServerContext* context,
                                                      const v1::ResumeRunRequest* request,
                                                      v1::ResumeRunResponse* response) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("ResumeRun"), request);
  if (!caller.ok()) return Refuse(context, caller.status());
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  WhenVisible(reactor, request->run_id(), caller->visible_tenant(),
              [this, reactor, request, response] {
                engine::ResumeBudget budget;
                if (request->has_budget_usd()) budget.usd = request->budget_usd();
                if (request->has_budget_tokens()) budget.tokens = request->budget_tokens();
                engine()->Resume(request->run_id(), budget,
                                 [reactor, response](absl::StatusOr<engine::ResumeResult> result) {
                                   if (result.ok()) {
                                     response->set_run_id(result->run_id);
                                     for (const std::string& phase : result->reused_phases) {
                                       response->add_reused_phases(phase);
                                     }
                                   }
                                   reactor->Finish(ToGrpcStatus(result.status()));
                                 });
              });
  return reactor;
}

grpc::ServerUnaryReactor* SchedulerService::ValidateFlow(grpc::CallbackServerContext* context,
                                                         const v1::ValidateFlowRequest* request,
                                                         v1::ValidateFlowResponse* response) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("ValidateFlow"), request);
  if (!caller.ok()) return Refuse(context, caller.status());
  return FinishFromPool(context, pool_, [this, request, response]() -> absl::Status {
    absl::StatusOr<v1::FlowSpec> spec =
        LoadRequestFlow(request->has_spec(), request->spec(), request->source(), limits_);
    if (!spec.ok()) {
      // Invalid flows are an answer, not an error: valid=false plus the list.
      if (spec.status().code() != absl::StatusCode::kInvalidArgument) return spec.status();
      response->set_valid(false);
      *response->mutable_errors() = flow::FlowErrorsFromStatus(spec.status()).errors();
      return absl::OkStatus();
    }
    response->set_valid(true);
    // A valid flow has a kind; a pattern's tasks are planned at run time, so
    // it has no layers.
    const flow::FlowKindInfo* kind = flow::FindFlowKind(*spec);
    v1::TaskflowSpec graph;
    if (kind != nullptr && kind->as_taskflow != nullptr) graph = kind->as_taskflow(*spec);
    for (const auto& layer : flow::PhaseLayers(graph)) {
      v1::FlowLayer& out = *response->add_layers();
      for (const std::string& id : layer) out.add_phase_ids(id);
    }
    *response->mutable_spec() = *std::move(spec);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* SchedulerService::SaveFlow(grpc::CallbackServerContext* context,
                                                     const v1::SaveFlowRequest* request,
                                                     v1::SaveFlowResponse* response) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("SaveFlow"), request);
  if (!caller.ok()) return Refuse(context, caller.status());
  return FinishFromPool(context, pool_,
                        [this, request, response, tenant = caller->tenant(),
                         deadline = ReplicatedDeadline(*context)]() -> absl::Status {
                          absl::StatusOr<v1::FlowSpec> spec = LoadRequestFlow(
                              request->has_spec(), request->spec(), request->source(), limits_);
                          if (!spec.ok()) return spec.status();
                          absl::StatusOr<v1::SavedFlow> stored = saved()->Save(
                              tenant, *spec, request->has_source() ? request->source().text() : "",
                              engine()->options().clock->NowMs());
                          if (!stored.ok()) return stored.status();
                          // Not acknowledged before the in-sync followers hold it
                          // (docs/high-availability.md#acknowledged-writes).
                          if (absl::Status acked = engine()->AwaitReplicated(deadline); !acked.ok())
                            return acked;
                          *response->mutable_flow() = *std::move(stored);
                          return absl::OkStatus();
                        });
}

grpc::ServerUnaryReactor* SchedulerService::GetFlow(grpc::CallbackServerContext* context,
                                                    const v1::GetFlowRequest* request,
                                                    v1::GetFlowResponse* response) {
  absl::StatusOr<auth::Caller> caller = gate_->Admit(*context, SchedulerMethod("GetFlow"), request);
  if (!caller.ok()) return Refuse(context, caller.status());
  return FinishFromPool(context, pool_,
                        [this, request, response, tenant = caller->tenant()]() -> absl::Status {
                          engine()->RefreshReads();
                          absl::StatusOr<v1::SavedFlow> flow =
                              saved()->Get(tenant, request->name(), request->version());
                          if (!flow.ok()) return flow.status();
                          *response->mutable_flow() = *std::move(flow);
                          return absl::OkStatus();
                        });
}

grpc::ServerUnaryReactor* SchedulerService::ListFlows(grpc::CallbackServerContext* context,
                                                      const v1::ListFlowsRequest* request,
                                                      v1::ListFlowsResponse* response) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("ListFlows"), request);
  if (!caller.ok()) return Refuse(context, caller.status());
  return FinishFromPool(
      context, pool_, [this, request, response, tenant = caller->tenant()]() -> absl::Status {
        engine()->RefreshReads();
        absl::StatusOr<v1::ListFlowsResponse> flows = saved()->List(tenant, *request);
        if (!flows.ok()) return flows.status();
        *response = *std::move(flows);
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* SchedulerService::DeleteFlow(grpc::CallbackServerContext* context,
                                                       const v1::DeleteFlowRequest* request,
                                                       v1::DeleteFlowResponse* response) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("DeleteFlow"), request);
  if (!caller.ok()) return Refuse(context, caller.status());
  return FinishFromPool(context, pool_,
                        [this, request, response, tenant = caller->tenant(),
                         deadline = ReplicatedDeadline(*context)]() -> absl::Status {
                          absl::StatusOr<int64_t> deleted =
                              saved()->Delete(tenant, request->name());
                          if (!deleted.ok()) return deleted.status();
                          if (absl::Status acked = engine()->AwaitReplicated(deadline); !acked.ok())
                            return acked;
                          response->set_deleted_versions(*deleted);
                          return absl::OkStatus();
                        });
}

grpc::ServerUnaryReactor* SchedulerService::GetTask(grpc::CallbackServerContext* context,
                                                    const v1::GetTaskRequest* request,
                                                    v1::GetTaskResponse* response) {
  absl::StatusOr<auth::Caller> caller = gate_->Admit(*context, SchedulerMethod("GetTask"), request);
  if (!caller.ok()) return Refuse(context, caller.status());
  return FinishFromPoolOnceCreated(
      context, pool_, *engine(), request->run_id(),
      [this, request, response, tenant = caller->visible_tenant()]() -> absl::Status {
        if (absl::Status visible = CheckRunVisible(engine()->store(), request->run_id(), tenant);
            !visible.ok()) {
          return visible;
        }
        absl::StatusOr<v1::GetTaskResponse> task =
            engine::ReadTask(engine()->store(), request->run_id(), request->task_id());
        if (!task.ok()) return task.status();
        *response = *std::move(task);
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* SchedulerService::ListWorkers(grpc::CallbackServerContext* context,
                                                        const v1::ListWorkersRequest* request,
                                                        v1::ListWorkersResponse* response) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("ListWorkers"), request);
  if (!caller.ok()) return Refuse(context, caller.status());
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  engine()->ListWorkers([reactor, response](std::vector<v1::WorkerInfo> workers) {
    for (v1::WorkerInfo& worker : workers) *response->add_workers() = std::move(worker);
    reactor->Finish(grpc::Status::OK);
  });
  return reactor;
}

grpc::ServerUnaryReactor* SchedulerService::DrainWorker(grpc::CallbackServerContext* context,
                                                        const v1::DrainWorkerRequest* request,
                                                        v1::DrainWorkerResponse* response) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("DrainWorker"), request);
  if (!caller.ok()) return Refuse(context, caller.status());
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (request->grace_ms() < 0) {
    reactor->Finish(ToGrpcStatus(absl::InvalidArgumentError(
        "grace_ms must not be negative (0 means the default of 30000)")));
    return reactor;
  }
  engine()->DrainWorker(request->worker_id(), request->grace_ms(), request->reason(),
                        [reactor, response](absl::StatusOr<v1::WorkerInfo> worker) {
                          if (worker.ok()) *response->mutable_worker() = std::move(*worker);
                          reactor->Finish(ToGrpcStatus(worker.status()));
                        });
  return reactor;
}

grpc::ServerUnaryReactor* SchedulerService::GetUsage(grpc::CallbackServerContext* context,
                                                     const v1::GetUsageRequest* request,
                                                     v1::GetUsageResponse* response) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, SchedulerMethod("GetUsage"), request);
  if (!caller.ok()) return Refuse(context, caller.status());
  absl::StatusOr<std::optional<std::string>> readable = caller->TenantToRead(request->tenant());
  if (!readable.ok()) return Refuse(context, readable.status());
  // Usage rows are per tenant: an admin asking for none reads every tenant's.
  const std::optional<std::string> only = *readable;
  const absl::Time since = request->has_since() ? absl::FromUnixSeconds(request->since().seconds())
                                                : absl::Now() - absl::Hours(24 * 30);
  return FinishFromPool(context, pool_, [this, only, since, response]() -> absl::Status {
    absl::StatusOr<std::vector<v1::UsageRow>> rows =
        engine()->ReadUsage(only.value_or(""), governance::UtcDay(since));
    if (!rows.ok()) return rows.status();
    for (v1::UsageRow& row : *rows) *response->add_rows() = std::move(row);
    // The budgets count the current period whatever `since` says
    // (docs/llm-governance.md#tenant-budgets).
    absl::StatusOr<std::vector<v1::TenantBudget>> budgets = engine()->ReadTenantBudgets(only);
    if (!budgets.ok()) return budgets.status();
    for (v1::TenantBudget& budget : *budgets) *response->add_budgets() = std::move(budget);
    return absl::OkStatus();
  });
}

}  // namespace taskboard::server
