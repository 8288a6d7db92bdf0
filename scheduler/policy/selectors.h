#ifndef TASKBOARD_SCHEDULER_POLICY_SELECTORS_H_
#define TASKBOARD_SCHEDULER_POLICY_SELECTORS_H_

// The building blocks the flow policies compose: which tasks a task builds
// on, and which ledger seqs belong to a set of tasks or to the recent window.
// Seq lists are ascending and duplicate-free; every function costs what it
// returns (plus graph lookups), never a scan of the whole ledger.

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "scheduler/policy/request_ledger.h"
#include "scheduler/policy/task_graph.h"
#include "scheduler/policy/task_key.h"

namespace taskboard::policy {

// The task's declared dependencies, duplicates removed, in declaration
// order. Never the task itself (a self-dependency is ignored).
std::vector<TaskKey> DeclaredDeps(const TaskGraph& graph, const TaskKey& task);

// The whole upstream closure: deps, their deps, ... (breadth-first from the
// task, each task once, cycles tolerated). Never the task itself.
std::vector<TaskKey> UpstreamClosure(const TaskGraph& graph, const TaskKey& task);

// The tasks with observations in the ledger that the graph reports
// completed, in ledger order.
std::vector<TaskKey> CompletedTasks(const RequestLedger& ledger, const TaskGraph& graph);

// Seqs of every observation made by any of `tasks`.
std::vector<int64_t> SeqsOfTasks(const RequestLedger& ledger, absl::Span<const TaskKey> tasks);

// The last `n` seqs of the ledger (all of them when n >= size; none for n <= 0).
std::vector<int64_t> RecentSeqs(const RequestLedger& ledger, int64_t n);

// Sorts and removes duplicates: turns a concatenation of seq lists into a
// union.
void SortUnique(std::vector<int64_t>& seqs);

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_SELECTORS_H_
