#include "scheduler/policy/selectors.h"

#include <algorithm>
#include <deque>

#include "absl/container/flat_hash_set.h"

namespace taskboard::policy {

std::vector<TaskKey> DeclaredDeps(const TaskGraph& graph, const TaskKey& task) {
  std::vector<TaskKey> deps;
  absl::flat_hash_set<TaskKey> seen{task};
  for (TaskKey& dep : graph.DirectDeps(task)) {
    if (seen.insert(dep).second) deps.push_back(std::move(dep));
  }
  return deps;
}

std::vector<TaskKey> UpstreamClosure(const TaskGraph& graph, const TaskKey& task) {
  std::vector<TaskKey> closure;
  absl::flat_hash_set<TaskKey> seen{task};
  std::deque<TaskKey> frontier{task};
  while (!frontier.empty()) {
    const TaskKey current = std::move(frontier.front());
    frontier.pop_front();
    for (TaskKey& dep : graph.DirectDeps(current)) {
      if (!seen.insert(dep).second) continue;
      closure.push_back(dep);
      frontier.push_back(std::move(dep));
    }
  }
  return closure;
}

std::vector<TaskKey> CompletedTasks(const RequestLedger& ledger, const TaskGraph& graph) {
  std::vector<TaskKey> completed;
  for (const TaskKey& task : ledger.Tasks()) {
    if (graph.IsCompleted(task)) completed.push_back(task);
  }
  return completed;
}

std::vector<int64_t> SeqsOfTasks(const RequestLedger& ledger, absl::Span<const TaskKey> tasks) {
  std::vector<int64_t> seqs;
  for (const TaskKey& task : tasks) {
    absl::Span<const int64_t> own = ledger.SeqsOfTask(task);
    seqs.insert(seqs.end(), own.begin(), own.end());
  }
  SortUnique(seqs);
  return seqs;
}

std::vector<int64_t> RecentSeqs(const RequestLedger& ledger, int64_t n) {
  const int64_t count = std::clamp<int64_t>(n, 0, ledger.size());
  std::vector<int64_t> seqs;
  seqs.reserve(static_cast<size_t>(count));
  for (int64_t seq = ledger.size() - count + 1; seq <= ledger.size(); ++seq) seqs.push_back(seq);
  return seqs;
}

void SortUnique(std::vector<int64_t>& seqs) {
  std::sort(seqs.begin(), seqs.end());
  seqs.erase(std::unique(seqs.begin(), seqs.end()), seqs.end());
}

}  // namespace taskboard::policy
