#include "scheduler/engine/runs/run_deletion.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {

absl::StatusOr<RunDeletion> RunDeletion::Plan(store::Store& store, const std::string& root_run_id,
                                              int64_t indexed_finished_ms, std::string index_key) {
  absl::StatusOr<store::RunRecord> root = ReadRunRecord(store, root_run_id);
  if (!root.ok()) return root.status();
  if (!root->run().parent_run_id().empty() || !IsTerminal(root->run().status())) {
    return absl::FailedPreconditionError(
        absl::StrCat("run ", root_run_id, " is not a finished root run"));
  }
  if (ToUnixMs(root->run().finished_at()) > indexed_finished_ms) {
    return absl::FailedPreconditionError(
        absl::StrCat("run ", root_run_id, " finished again after it was indexed"));
  }
  RunDeletion deletion;
  deletion.root_run_id_ = root_run_id;
  deletion.tenant_ = root->tenant();
  // Breadth first over child_run_ids; a child whose record is gone or does
  // not decode still has its other keys deleted.
  std::vector<std::string> pending = {root_run_id};
  for (size_t i = 0; i < pending.size(); ++i) {
    const std::string run_id = pending[i];
    deletion.run_ids_.push_back(run_id);
    absl::StatusOr<store::RunRecord> record =
        run_id == root_run_id ? *root : ReadRunRecord(store, run_id);
    if (!record.ok()) {
      if (absl::IsNotFound(record.status()) || absl::IsDataLoss(record.status())) continue;
      return record.status();
    }
    if (!record->idempotency_key().empty()) {
      deletion.idempotency_keys_.push_back(record->idempotency_key());
    }
    for (const std::string& child : record->run().child_run_ids()) pending.push_back(child);
  }

  for (const std::string& run_id : deletion.run_ids_) {
    deletion.ranges_.push_back({store::Column::kTasks, store::keys::TasksOfRun(run_id), ""});
    deletion.ranges_.push_back({store::Column::kEvents, store::keys::EventsOfRun(run_id), ""});
    deletion.ranges_.push_back({store::Column::kMeta, store::keys::RunPhases(run_id), ""});
    deletion.ranges_.push_back({store::Column::kMeta, store::keys::RunPhaseItemsOfRun(run_id), ""});
    deletion.ranges_.push_back({store::Column::kMeta, store::keys::PriorWorkOfRun(run_id), ""});
  }
  // Child runs share their root's request ledger, and its run storage
  // (docs/mcp.md#flowstate).
  deletion.ranges_.push_back(
      {store::Column::kLedger, store::keys::LedgerKeysOfRequest(root_run_id), ""});
  deletion.ranges_.push_back(
      {store::Column::kMeta, store::keys::RunStateOfRun(deletion.tenant_, root_run_id), ""});

  for (const std::string& run_id : deletion.run_ids_) {
    deletion.last_keys_.emplace_back(store::Column::kMeta, store::keys::RunSpec(run_id));
  }
  if (!deletion.tenant_.empty()) {
    for (const std::string& run_id : deletion.run_ids_) {
      deletion.last_keys_.emplace_back(store::Column::kMeta,
                                       store::keys::TenantRun(deletion.tenant_, run_id));
    }
  }
  for (const std::string& key : deletion.idempotency_keys_) {
    deletion.last_keys_.emplace_back(store::Column::kMeta, store::keys::Idempotency(key));
  }
  // Descendants before the root: while the root's record is there, the
  // index entry leads back to it.
  for (auto it = deletion.run_ids_.rbegin(); it != deletion.run_ids_.rend(); ++it) {
    deletion.last_keys_.emplace_back(store::Column::kRuns, store::keys::Run(*it));
  }
  deletion.last_keys_.emplace_back(store::Column::kMeta, std::move(index_key));
  return deletion;
}

absl::StatusOr<bool> RunDeletion::Step(store::Store& store, size_t budget,
                                       store::WriteBatch& batch) {
  size_t deleted = 0;
  while (next_range_ < ranges_.size() && deleted < budget) {
    Range& range = ranges_[next_range_];
    // Past what the previous step deleted: its tombstones need not be
    // walked again.
    std::string start = range.resume_after.empty() ? range.prefix : range.resume_after + '\0';
    bool full = false;
    absl::Status scanned = store.Scan(range.column, start, store::PrefixEnd(range.prefix),
                                      [&](absl::string_view key, absl::string_view) {
                                        batch.Delete(range.column, key);
                                        range.resume_after = std::string(key);
                                        if (++deleted >= budget) {
                                          full = true;
                                          return false;
                                        }
                                        return true;
                                      });
    if (!scanned.ok()) return scanned;
    if (!full) ++next_range_;  // the range is empty after this batch
  }
  if (next_range_ < ranges_.size()) return false;
  for (const auto& [column, key] : last_keys_) batch.Delete(column, key);
  last_keys_.clear();
  return true;
}

}  // namespace taskboard::engine
