#ifndef TASKBOARD_SCHEDULER_DISPATCH_READY_QUEUE_H_
#define TASKBOARD_SCHEDULER_DISPATCH_READY_QUEUE_H_

// Ready tasks waiting for a worker, one queue per agent name: higher priority
// first, then the tenant served least recently, then FIFO by when the task
// became ready and the order the run created it (then run id, so the order
// is total). Taking tenants in turn keeps one tenant's 10,000-item map from
// holding another tenant's single task until the map is through
// (docs/llm-governance.md); with one tenant (no authentication) it is plain
// priority-then-FIFO. Entries may go stale or repeat (the task was cancelled
// or re-queued meanwhile): the dispatcher re-checks the task when it pops one.
//
// An entry holds no strings of its own (a million pending tasks each held
// copies of their run id, task id and tenant): it shares its run's
// `ReadyRun` and views its task id where the run keeps it. Lifetime rule: a
// task id is read only while its run has not `ended`; whoever owns the run
// sets `ended` before the storage the ids view goes away, and keeps a task
// id's storage until then even when the task is removed (RunState does
// both). Entries of an ended run are skipped or dropped without reading
// their task id.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace taskboard::dispatch {

// The run of queued entries, one per run in memory, shared by its entries.
struct ReadyRun {
  std::string run_id;
  std::string tenant;  // whose turn it is ("" without auth)
  bool ended = false;  // the run left memory: its entries' task ids dangle
};

struct ReadyEntry {
  int32_t priority = 0;
  int64_t ready_ms = 0;
  int64_t order = 0;
  int64_t queued_us = 0;  // when it entered the queue (latency metrics only)
  std::shared_ptr<ReadyRun> run;
  absl::string_view task_id;  // valid while !run->ended

  bool operator<(const ReadyEntry& other) const {
    if (priority != other.priority) return priority > other.priority;
    if (ready_ms != other.ready_ms) return ready_ms < other.ready_ms;
    if (order != other.order) return order < other.order;
    if (run != other.run) {
      if (run->run_id != other.run->run_id) return run->run_id < other.run->run_id;
      // The same id in memory twice, one after the other (a resumed run):
      // only entries of the same one compare their task ids, so an ended
      // run's are never read.
      return run.get() < other.run.get();
    }
    return task_id < other.task_id;
  }
};

class ReadyQueue {
 public:
  // Adds an entry (an identical one already queued is ignored). The entry's
  // run must not have ended.
  void Push(absl::string_view agent, ReadyEntry entry);
  bool Empty(absl::string_view agent) const;
  // The best entry of `agent`'s queue, removed. The queue must not be empty.
  // It may be of an ended run (check `run->ended` before its task id).
  ReadyEntry Pop(absl::string_view agent);
  // Agents with at least one queued entry.
  std::vector<std::string> AgentsWithWork() const;
  size_t Depth(absl::string_view agent) const;
  size_t TotalDepth() const { return size_; }
  // Entries of `agent` in `tenant`'s turn.
  size_t Depth(absl::string_view agent, absl::string_view tenant) const;
  // The earliest ready_ms of any queued entry (stale ones included), or
  // nullopt when every queue is empty. Costs one lookup per distinct
  // priority in each queue, not one per entry.
  std::optional<int64_t> OldestReadyMs() const;
  // The same for `agent`'s queue alone.
  std::optional<int64_t> OldestReadyMs(absl::string_view agent) const;
  // Removes and returns `agent`'s entries ready at or before `ready_ms`
  // (stale ones included), in no particular order: the tasks whose
  // scheduling deadline passed. Costs what it returns plus a lookup per
  // distinct priority, not the size of the queue.
  std::vector<ReadyEntry> TakeReadyUpTo(absl::string_view agent, int64_t ready_ms);

 private:
  // A B-tree, not a node per entry: a million pending tasks are a million
  // entries.
  using Entries = absl::btree_set<ReadyEntry>;
  // The first entry of the priority group after `entry`'s in `queue`.
  static Entries::const_iterator NextPriorityGroup(const Entries& queue, const ReadyEntry& entry);
  struct AgentQueue {
    std::map<std::string, Entries> by_tenant;
    // When each tenant was last served (a pop counter): least recent first.
    absl::flat_hash_map<std::string, uint64_t> served;
    size_t size = 0;
  };
  absl::flat_hash_map<std::string, AgentQueue> queues_;
  size_t size_ = 0;
  uint64_t pops_ = 0;
};

}  // namespace taskboard::dispatch

#endif  // TASKBOARD_SCHEDULER_DISPATCH_READY_QUEUE_H_
