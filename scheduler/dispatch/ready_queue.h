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

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace taskboard::dispatch {

struct ReadyEntry {
  int32_t priority = 0;
  int64_t ready_ms = 0;
  int64_t order = 0;
  std::string run_id;
  std::string task_id;
  int64_t queued_us = 0;  // when it entered the queue (latency metrics only)
  std::string tenant;     // whose turn it is (the run's tenant; "" without auth)

  bool operator<(const ReadyEntry& other) const {
    if (priority != other.priority) return priority > other.priority;
    return std::tie(ready_ms, order, run_id, task_id) <
           std::tie(other.ready_ms, other.order, other.run_id, other.task_id);
  }
};

class ReadyQueue {
 public:
  // Adds an entry (an identical one already queued is ignored).
  void Push(absl::string_view agent, ReadyEntry entry);
  bool Empty(absl::string_view agent) const;
  // The best entry of `agent`'s queue, removed. The queue must not be empty.
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
  // The first entry of the priority group after `entry`'s in `queue`.
  static std::set<ReadyEntry>::iterator NextPriorityGroup(const std::set<ReadyEntry>& queue,
                                                          const ReadyEntry& entry);
  struct AgentQueue {
    std::map<std::string, std::set<ReadyEntry>> by_tenant;
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
