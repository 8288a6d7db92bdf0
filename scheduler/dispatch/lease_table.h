#ifndef TASKBOARD_SCHEDULER_DISPATCH_LEASE_TABLE_H_
#define TASKBOARD_SCHEDULER_DISPATCH_LEASE_TABLE_H_

// Live leases: which task each lease id covers, which worker stream holds it
// (0 while no stream does, e.g. after a scheduler restart) and when it
// expires unless heartbeated. A result is committed only under the task's
// current lease (fencing); an expired lease re-queues its task.
// Owned by the engine loop; not thread-safe.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace taskboard::dispatch {

struct Lease {
  std::string lease_id;
  std::string run_id;
  std::string task_id;
  std::string worker_id;
  // The identity of the stream it was given to (ConnectedWorker::identity);
  // "" after a scheduler restart, when only the worker id is known.
  std::string identity;
  uint64_t stream_id = 0;
  int64_t expires_ms = 0;
};

class LeaseTable {
 public:
  void Add(Lease lease);
  const Lease* Find(absl::string_view lease_id) const;
  Lease* FindMutable(absl::string_view lease_id);
  void Remove(absl::string_view lease_id);

  // Leases past their expiry, removed from the table.
  std::vector<Lease> ExpireBefore(int64_t now_ms);
  // Leases of `stream_id` (or of `worker_id` when held by no stream).
  std::vector<Lease> HeldBy(uint64_t stream_id) const;
  std::vector<Lease> OrphansOf(absl::string_view worker_id) const;
  size_t size() const { return leases_.size(); }

 private:
  absl::flat_hash_map<std::string, Lease> leases_;
};

}  // namespace taskboard::dispatch

#endif  // TASKBOARD_SCHEDULER_DISPATCH_LEASE_TABLE_H_
