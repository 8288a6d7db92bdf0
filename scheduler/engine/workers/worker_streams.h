#ifndef TASKBOARD_SCHEDULER_ENGINE_WORKERS_WORKER_STREAMS_H_
#define TASKBOARD_SCHEDULER_ENGINE_WORKERS_WORKER_STREAMS_H_

// The connected worker streams as the loop sees them: who is connected
// (dispatch::WorkerRegistry), how many slots each worker process has, the
// credits and drains of each stream, and what the loop sends on them. A
// message to a worker is sent once the batch that decided it is written
// (LoopBatch::Send), so a worker never sees what a crash could undo.
//
// Loop thread only: nothing here takes a lock.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "scheduler/dispatch/lease_table.h"
#include "scheduler/dispatch/worker_channel.h"
#include "scheduler/dispatch/worker_registry.h"
#include "scheduler/engine/core/loop_batch.h"
#include "taskboard/v1/scheduler.pb.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::engine {

class WorkerStreams {
 public:
  // `batch` outlives this.
  explicit WorkerStreams(LoopBatch* batch) : batch_(batch) {}
  WorkerStreams(const WorkerStreams&) = delete;
  WorkerStreams& operator=(const WorkerStreams&) = delete;

  // A stream's Hello: registers it for `identity` (who it authenticated as).
  // Its capacity is the most slots its worker process (Hello.incarnation)
  // ever declared: a reconnecting worker may still run tasks whose leases
  // were revoked, so free slots plus held tasks would undercount it.
  dispatch::ConnectedWorker& Add(uint64_t stream_id, const v1::Hello& hello,
                                 std::shared_ptr<dispatch::WorkerChannel> channel,
                                 const std::string& identity);
  void Remove(uint64_t stream_id) { registry_.Remove(stream_id); }
  dispatch::ConnectedWorker* Find(uint64_t stream_id) { return registry_.Find(stream_id); }
  // A message came on `stream_id`: its worker is no longer silent and was
  // heard now. Null before its Hello or after it left (the message is
  // dropped).
  dispatch::ConnectedWorker* Heard(uint64_t stream_id);
  // A lease of the stream expired without a heartbeat: no new work for it
  // until it speaks again (WorkerRegistry::Pick).
  void Silence(uint64_t stream_id);

  // Slots the worker freed, and a resize of its prefetch queue. Never more
  // credits outstanding than its capacity, so a confused or hostile worker
  // cannot draw the whole ready queue; a bad count is logged and capped.
  void OnCredits(dispatch::ConnectedWorker& worker, const v1::Credits& credits);
  // The worker drains itself: no new assignments.
  void OnDraining(dispatch::ConnectedWorker& worker, const v1::Draining& draining);

  // Sends `message` on `stream_id` once the batch is written; dropped when
  // the stream is gone.
  void SendTo(uint64_t stream_id, v1::ConnectResponse message);

  // ListWorkers: the connected streams, sorted by worker id, with how many
  // tasks each runs (the leases its stream holds).
  std::vector<v1::WorkerInfo> List(const dispatch::LeaseTable& leases) const;
  // DrainWorker: sends Drain{grace_ms} (30 s when not positive) to every
  // stream of `worker_id` and stops assigning to it. NOT_FOUND naming the
  // connected worker ids when no stream has that id.
  absl::StatusOr<v1::WorkerInfo> Drain(const std::string& worker_id, int64_t grace_ms,
                                       const std::string& reason,
                                       const dispatch::LeaseTable& leases);
  // Every open stream's channel (CloseStreams).
  std::vector<std::shared_ptr<dispatch::WorkerChannel>> Channels() const;

  dispatch::WorkerRegistry& registry() { return registry_; }
  const dispatch::WorkerRegistry& registry() const { return registry_; }

 private:
  static v1::WorkerInfo Describe(const dispatch::ConnectedWorker& worker,
                                 const dispatch::LeaseTable& leases);

  LoopBatch* const batch_;
  dispatch::WorkerRegistry registry_;
  // The most slots each worker process (Hello.incarnation) declared.
  absl::flat_hash_map<std::string, int64_t> capacity_by_incarnation_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_WORKERS_WORKER_STREAMS_H_
