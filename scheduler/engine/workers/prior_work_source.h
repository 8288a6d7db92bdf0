#ifndef TASKBOARD_SCHEDULER_ENGINE_WORKERS_PRIOR_WORK_SOURCE_H_
#define TASKBOARD_SCHEDULER_ENGINE_WORKERS_PRIOR_WORK_SOURCE_H_

// What an assignment carries of the run's earlier tool calls
// (docs/policies.md#what-a-task-receives) comes from the tool calls' side. The
// dispatcher asks through this per task it is about to send, so it needs no
// include of the component above it.

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "scheduler/engine/runs/active_runs.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::engine {

class PriorWorkSource {
 public:
  virtual ~PriorWorkSource() = default;

  struct Choice {
    enum class Kind {
      kSend,        // send now with `prior_work`
      kParked,      // the task waits for a summary; it leaves the ready queue
      kFailed,      // the prior work could not be read: fail the task (`status`)
      kAfterCommit  // an external policy chooses once the dispatch is written
    };
    Kind kind = Kind::kSend;
    v1::PriorWork prior_work;
    absl::Status status;

    static Choice Send(v1::PriorWork prior_work) {
      return {Kind::kSend, std::move(prior_work), absl::OkStatus()};
    }
    static Choice Parked() { return {Kind::kParked, {}, absl::OkStatus()}; }
    static Choice Failed(absl::Status status) { return {Kind::kFailed, {}, std::move(status)}; }
    static Choice AfterCommit() { return {Kind::kAfterCommit, {}, absl::OkStatus()}; }
  };

  // Called for a READY task before it is marked dispatched.
  virtual Choice ChooseFor(ActiveRun& active, const std::string& task_id) = 0;
  // After kAfterCommit: `message` is the task's assignment (lease granted,
  // task dispatched), to be sent once its prior work is chosen.
  virtual void SendAfterCommit(ActiveRun& active, v1::ConnectResponse message) = 0;
  // Sends the summary jobs waiting for a worker; before and after the tasks.
  virtual void DispatchSummaries() = 0;
  // A summarizer's lease (the only kind without a task id) reported its
  // result: the source takes the lease off its job, then ends it
  // (LeaseKeeper::End, so its own lease-end listener sees no lost
  // summarizer), then finishes the job. The caller acknowledges.
  virtual void OnSummaryResult(const v1::TaskResult& result) = 0;
  // A summarizer's lease was handed back (draining): the source removes it
  // without ending it (LeaseKeeper::Drop: nothing of it was lost) and
  // queues the job for another worker. The caller acknowledges.
  virtual void OnSummaryReturned(absl::string_view lease_id) = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_WORKERS_PRIOR_WORK_SOURCE_H_
