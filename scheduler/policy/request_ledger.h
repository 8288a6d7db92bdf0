#ifndef TASKBOARD_SCHEDULER_POLICY_REQUEST_LEDGER_H_
#define TASKBOARD_SCHEDULER_POLICY_REQUEST_LEDGER_H_

// The observation ledger of one request (a root run and all its child runs;
// docs/semantics.md#observation-ledger): every tool call any of its tasks made, in order, with the
// indexes the flow policies select through. The engine owns one per
// request, appends each reported observation (and persists it), and
// rebuilds it with Restore after a restart.
//
// Indexes (by seq, by task, errored calls, by tool, token estimates) let a
// policy touch only what it selects: no selection scans the whole ledger.
//
// Where the observation bodies live:
//   - without an ObservationSource the ledger holds them (tests, tools):
//     At() and Read() never fail;
//   - with one (the scheduler) it holds only the indexes, tens of bytes per
//     call, and Read() fetches the selected bodies from the source (a
//     bounded cache in front of the store), which can fail. At() is then
//     unavailable: code that runs on both kinds reads through Read().
//
// Not thread-safe: the engine reads and appends under its own lock. Spans
// and references returned here stay valid until the next Append or Restore
// (observation references of a ledger that holds its bodies stay valid for
// the ledger's lifetime).

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "scheduler/policy/observation_source.h"
#include "scheduler/policy/task_key.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::policy {

class RequestLedger {
 public:
  // `bodies` (not owned, outlives the ledger): where the observation bodies
  // live; nullptr: the ledger holds them.
  explicit RequestLedger(std::string root_run_id = "", ObservationSource* bodies = nullptr);

  RequestLedger(const RequestLedger&) = delete;
  RequestLedger& operator=(const RequestLedger&) = delete;

  const std::string& root_run_id() const { return root_run_id_; }

  // Records a new observation, assigning seq = size() + 1 (any seq in `obs`
  // is overwritten), and hands it to the source if there is one. Returns the
  // stored record (with a source: valid until the next Append).
  const v1::Observation& Append(v1::Observation obs);

  // Reloads a persisted observation. Observations must come back in order:
  // FAILED_PRECONDITION (naming the expected seq) unless obs.seq() ==
  // size() + 1; the ledger is unchanged then. With a source only the indexes
  // are kept (the body is already in the store).
  absl::Status Restore(v1::Observation obs);

  int64_t size() const { return static_cast<int64_t>(tokens_.size()); }

  // Whether the ledger holds the bodies itself (no source).
  bool holds_bodies() const { return bodies_ == nullptr; }

  // The observation with this seq; 1 <= seq <= size() (aborts otherwise: a
  // seq outside the ledger is a caller bug, not an input error). Only on a
  // ledger that holds its bodies (aborts otherwise).
  const v1::Observation& At(int64_t seq) const;

  // Copies of the observations with these seqs, in the order given; each
  // must be in the ledger (aborts otherwise, as At). A ledger that holds its
  // bodies never fails; with a source, the source's error (UNAVAILABLE,
  // INTERNAL, DATA_LOSS) is returned.
  absl::StatusOr<std::vector<v1::Observation>> Read(absl::Span<const int64_t> seqs) const;

  // Read for the policy functions, whose results are plain values: a
  // failure yields no observations and is kept (the first one) until
  // TakeReadError. Whoever runs a selection over a ledger with a source
  // checks TakeReadError afterwards and discards the selection if it fails.
  std::vector<v1::Observation> ReadOrKeepError(absl::Span<const int64_t> seqs) const;

  // The first read error since the last call (OK if none), cleared.
  absl::Status TakeReadError();

  // Bytes the indexes hold (vectors' capacity and hash tables' slots; not
  // allocator overhead): what a ledger with a source costs in memory.
  int64_t IndexBytes() const;

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
  // Adds `obs` (seq already size() + 1) to the indexes.
  void Index(const v1::Observation& obs);
  void CheckSeq(int64_t seq) const;

  std::string root_run_id_;
  ObservationSource* bodies_;
  // The bodies, when the ledger holds them (no source). A deque keeps
  // references to stored observations valid as it grows.
  std::deque<v1::Observation> observations_;
  // With a source: the latest Append, returned by reference.
  v1::Observation last_appended_;
  mutable absl::Status read_error_;
  std::vector<int64_t> tokens_;
  absl::flat_hash_map<TaskKey, std::vector<int64_t>> seqs_by_task_;
  std::vector<TaskKey> tasks_;
  std::vector<int64_t> error_seqs_;
  absl::flat_hash_map<std::string, std::vector<int64_t>> seqs_by_tool_;
};

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_REQUEST_LEDGER_H_
