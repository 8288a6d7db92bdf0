#include "scheduler/engine/run_storage/run_state_calls.h"

#include "absl/strings/str_cat.h"

namespace taskboard::engine {
namespace {

absl::Status NotHeld(const v1::RunStateRequest& request) {
  return absl::FailedPreconditionError(
      absl::StrCat("task ", request.task_id(),
                   " does not hold this lease any more (it ended, was cancelled or was given to "
                   "another worker): run storage is reachable only while the task runs"));
}

}  // namespace

absl::StatusOr<v1::RunStateResponse> CallRunState(const std::string& identity,
                                                  const v1::RunStateRequest& request,
                                                  const LeaseKeeper& leases, ActiveRuns& runs,
                                                  RunStorage& storage, store::WriteBatch& writes) {
  // Read-only fencing, like LeaseKeeper::Current but without touching the
  // run: a read must not rewrite the task's record.
  const dispatch::Lease* lease = leases.Find(request.lease_id());
  if (lease == nullptr || lease->task_id != request.task_id()) return NotHeld(request);
  if (!lease->identity.empty() && lease->identity != identity) {
    return absl::PermissionDeniedError(
        absl::StrCat("the lease of task ", request.task_id(),
                     " was given to another worker identity; a worker reaches only the run "
                     "storage of the tasks it holds"));
  }
  const ActiveRun* active = runs.Find(lease->run_id);
  if (active == nullptr) return NotHeld(request);
  const store::TaskRecord* task = active->state->FindTask(request.task_id());
  if (task == nullptr || task->lease_id() != request.lease_id()) return NotHeld(request);
  const v1::TaskState state = task->task().state();
  if (state != v1::TASK_STATE_DISPATCHED && state != v1::TASK_STATE_RUNNING)
    return NotHeld(request);

  RunStorageCall call;
  call.tenant = active->state->record().run().tenant();
  call.root_run_id = active->state->root_run_id();
  call.space = request.space();
  call.key = request.key();
  call.value = request.value();
  switch (request.op()) {
    case v1::RunStateRequest::OP_GET:
      call.op = RunStorageOp::kGet;
      break;
    case v1::RunStateRequest::OP_SET:
      call.op = RunStorageOp::kSet;
      break;
    case v1::RunStateRequest::OP_DELETE:
      call.op = RunStorageOp::kDelete;
      break;
    case v1::RunStateRequest::OP_LIST:
      call.op = RunStorageOp::kList;
      break;
    default:
      return absl::InvalidArgumentError("the request names no op: get, set, delete or list");
  }
  absl::StatusOr<RunStorageAnswer> answer = storage.Apply(call, writes);
  if (!answer.ok()) return answer.status();
  v1::RunStateResponse response;
  response.set_found(answer->found);
  response.set_value(std::move(answer->value));
  for (auto& [key, value] : answer->entries) (*response.mutable_entries())[key] = std::move(value);
  response.set_root_run_id(call.root_run_id);
  response.set_run_keys(answer->run_keys);
  response.set_run_bytes(answer->run_bytes);
  return response;
}

}  // namespace taskboard::engine
