#ifndef TASKBOARD_WORKER_SESSION_TASK_BOOK_H_
#define TASKBOARD_WORKER_SESSION_TASK_BOOK_H_

// The worker's ledger of leases: which tasks hold a slot, and which final
// reports (TaskResult / TaskReturned) the scheduler has not acknowledged yet.
// The session keeps reports until their ResultAck so that a result finished
// while the stream was down, or lost with it, is sent again after the next
// Welcome; until then the worker still holds the lease (Hello.held_tasks,
// heartbeats), so the scheduler keeps it instead of re-running the task.
// Pure bookkeeping (no I/O, no clock); not thread-safe, the session guards
// it with its mutex.
//
//   Start(lease) --> running --Finish(lease, report)--> unacked --Ack--> gone
//                       |                                  |
//                     Revoke --> revoked --Finish--> gone  +--Revoke--> gone

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::worker {

class TaskBook {
 public:
  explicit TaskBook(int slots) : slots_(slots) {}

  int slots() const { return slots_; }
  // A worker resizing its prefetch queue. Below running(), free_slots() is
  // negative until enough tasks end; nothing running is touched.
  void set_slots(int slots) { slots_ = slots; }
  int free_slots() const { return slots_ - static_cast<int>(running_.size()); }
  int running() const { return static_cast<int>(running_.size()); }
  int unacked() const { return static_cast<int>(unacked_.size()); }
  bool IsRunning(const std::string& lease_id) const { return running_.contains(lease_id); }

  // Takes a slot for the task. False, and nothing changes, when no slot is
  // free or the lease is already running.
  bool Start(const std::string& task_id, const std::string& lease_id);

  // The task's slot frees; `report` (a ConnectRequest holding task_result or
  // task_returned) waits for its ack. Returns false, keeping nothing, when
  // the lease was revoked meanwhile or is not running.
  bool Finish(const std::string& lease_id, v1::ConnectRequest report);

  // A ResultAck: forgets the report. False when none was waiting.
  bool Ack(const std::string& lease_id);

  // A Welcome's revoked leases: waiting reports for them are dropped, and the
  // running ones among them are returned (the caller cancels them); they keep
  // their slot until they finish but are no longer held or heartbeated.
  std::vector<std::string> Revoke(const std::vector<std::string>& lease_ids);

  // Running, non-revoked tasks and those whose report waits for its ack
  // (Hello.held_tasks), by lease id.
  std::vector<v1::HeldTask> Held() const;
  // Their lease ids (Heartbeat.lease_ids), sorted.
  std::vector<std::string> HeldLeases() const;
  // Reports waiting for an ack, oldest first.
  std::vector<v1::ConnectRequest> UnackedReports() const;

 private:
  struct Running {
    std::string task_id;
    bool revoked = false;
  };

  struct Unacked {
    uint64_t finished;  // finish order
    std::string task_id;
    v1::ConnectRequest report;
  };

  int slots_;
  absl::flat_hash_map<std::string, Running> running_;
  // By lease id: every task's ack finds its report at once (a busy worker
  // holds a slot's and a prefetch queue's worth, hundreds, and a scan per ack
  // was a visible share of its CPU per task).
  absl::flat_hash_map<std::string, Unacked> unacked_;
  uint64_t finished_ = 0;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_SESSION_TASK_BOOK_H_
