#ifndef TASKBOARD_SCHEDULER_ENGINE_WORKERS_WORKER_LISTENER_H_
#define TASKBOARD_SCHEDULER_ENGINE_WORKERS_WORKER_LISTENER_H_

// What the tool calls and the LLM grants keep per lease follows the leases
// through this: the workers' side (lease_keeper.h) calls out, the higher
// components implement it, so no include runs up.

#include <cstdint>

#include "absl/strings/string_view.h"
#include "scheduler/dispatch/lease_table.h"

namespace taskboard::engine {

class WorkerListener {
 public:
  virtual ~WorkerListener() = default;
  // `lease_id` ended (result, hand-back, loss, cancel, timeout) and left the
  // lease table. `was_held` is its entry before it left; null when it was no
  // longer in the table (an expired lease leaves the table before it is
  // lost), so nothing is credited back for it.
  virtual void OnLeaseEnded(absl::string_view lease_id, const dispatch::Lease* was_held) = 0;
  // Stream `stream_id` closed, after its leases were detached from it (they
  // stay until they expire or the worker reconnects holding them).
  virtual void OnStreamClosed(uint64_t stream_id) {}
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_WORKERS_WORKER_LISTENER_H_
