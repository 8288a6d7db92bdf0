#ifndef TASKBOARD_SCHEDULER_POLICY_REQUEST_LEDGER_H_
#define TASKBOARD_SCHEDULER_POLICY_REQUEST_LEDGER_H_

// The in-memory observation ledger of one request (a root run and all its
// child runs; SEMANTICS.md 3): every tool call any of its tasks made, in
// order, with the indexes the flow policies select through. The engine owns
// one per request, appends each reported observation (and persists it), and
// rebuilds it with Restore after a restart.
//
// Indexes (by seq, by task, errored calls, by tool) let a policy touch only
// what it selects: no selection scans the whole ledger.
//
// Not thread-safe: the engine reads and appends under its own lock. Spans
// and references returned here stay valid until the next Append or Restore
// (observation references stay valid for the ledger's lifetime).

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "scheduler/policy/task_key.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::policy {

class RequestLedger {
 public:
  explicit RequestLedger(std::string root_run_id = "");

  RequestLedger(const RequestLedger&) = delete;
  RequestLedger& operator=(const RequestLedger&) = delete;

  const std::string& root_run_id() const { return root_run_id_; }

  // Records a new observation, assigning seq = size() + 1 (any seq in `obs`
  // is overwritten). Returns the stored record.
  const v1::Observation& Append(v1::Observation obs);

  // Reloads a persisted observation. Observations must come back in order:
  // FAILED_PRECONDITION (naming the expected seq) unless obs.seq() ==
  // size() + 1; the ledger is unchanged then.
  absl::Status Restore(v1::Observation obs);

  int64_t size() const { return static_cast<int64_t>(observations_.size()); }

  // The observation with this seq; 1 <= seq <= size() (aborts otherwise: a
  // seq outside the ledger is a caller bug, not an input error).
  const v1::Observation& At(int64_t seq) const;

  // EstimateTokens(At(seq)), computed once on append.
  int64_t TokensAt(int64_t seq) const;

  // Ascending seqs of the observations made by `task`. Observations without
  // a task id belong to no task.
  absl::Span<const int64_t> SeqsOfTask(const TaskKey& task) const;

  // Ascending seqs of the failed calls (error set).
  absl::Span<const int64_t> ErrorSeqs() const { return error_seqs_; }

  // Ascending seqs of the calls to `tool_name`.
  absl::Span<const int64_t> SeqsOfTool(absl::string_view tool_name) const;

  // Every task with at least one observation, in order of its first one.
  absl::Span<const TaskKey> Tasks() const { return tasks_; }

 private:
  const v1::Observation& Insert(v1::Observation obs);
  void CheckSeq(int64_t seq) const;

  std::string root_run_id_;
  // A deque keeps references to stored observations valid as it grows.
  std::deque<v1::Observation> observations_;
  std::vector<int64_t> tokens_;
  absl::flat_hash_map<TaskKey, std::vector<int64_t>> seqs_by_task_;
  std::vector<TaskKey> tasks_;
  std::vector<int64_t> error_seqs_;
  absl::flat_hash_map<std::string, std::vector<int64_t>> seqs_by_tool_;
};

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_REQUEST_LEDGER_H_
