// Engine: --retention, deleting finished runs in the background.

#include <utility>

#include "absl/strings/escaping.h"
#include "common/log/log.h"
#include "scheduler/cache/cache_key.h"
#include "scheduler/engine/engine.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {
namespace {

// How often the index is looked at while nothing is being deleted: one seek.
constexpr int64_t kRetentionCheckMs = 1'000;

}  // namespace

void Engine::SweepRetention() {
  if (options_.retention_ms <= 0) return;
  if (!deletion_.has_value()) {
    if (batch_.now_ms() < next_retention_check_ms_) return;
    next_retention_check_ms_ = batch_.now_ms() + kRetentionCheckMs;
    std::string index_key;
    std::optional<store::keys::FinishedKey> oldest;
    absl::Status scanned =
        options_.store->ScanPrefix(store::Column::kMeta, store::keys::FinishedRuns(),
                                   [&](absl::string_view key, absl::string_view) {
                                     index_key = std::string(key);
                                     oldest = store::keys::ParseFinishedRun(key);
                                     return false;
                                   });
    if (!scanned.ok() || index_key.empty()) return;
    if (!oldest.has_value()) {
      log::Warn("dropping a retention index key that does not decode")
          .With("key", absl::CHexEscape(index_key));
      batch_.writes().Delete(store::Column::kMeta, index_key);
      return;
    }
    if (oldest->finished_ms > batch_.now_ms() - options_.retention_ms)
      return;  // nothing old enough
    if (runs_.count(oldest->run_id) > 0) {
      // Resumed since it finished: it is indexed again when it ends.
      batch_.writes().Delete(store::Column::kMeta, index_key);
      next_retention_check_ms_ = batch_.now_ms();
      return;
    }
    absl::StatusOr<RunDeletion> planned =
        RunDeletion::Plan(*options_.store, oldest->run_id, oldest->finished_ms, index_key);
    if (!planned.ok()) {
      // Gone already, or resumed and finished again later (a newer entry
      // stands for it): only this entry is left.
      if (!absl::IsNotFound(planned.status()) && !absl::IsFailedPrecondition(planned.status())) {
        log::Warn("retention could not read a run; it is tried again later")
            .With("run_id", oldest->run_id)
            .With("error", planned.status());
        return;
      }
      batch_.writes().Delete(store::Column::kMeta, index_key);
      next_retention_check_ms_ = batch_.now_ms();
      return;
    }
    deletion_ = *std::move(planned);
  }
  absl::StatusOr<bool> done =
      deletion_->Step(*options_.store, options_.retention_keys_per_batch, batch_.writes());
  if (!done.ok()) {
    log::Warn("retention stopped deleting a run; it is tried again later")
        .With("run_id", deletion_->root_run_id())
        .With("error", done.status());
    deletion_.reset();
    return;
  }
  if (!*done) return;
  FinishDeletion(*deletion_);
  deletion_.reset();
  next_retention_check_ms_ = batch_.now_ms();  // there may be more to delete
}

void Engine::FinishDeletion(const RunDeletion& deletion) {
  for (const std::string& key : deletion.idempotency_keys()) {
    auto it = idempotency_.find(key);
    if (it != idempotency_.end() && it->second == deletion.root_run_id()) idempotency_.erase(it);
  }
  // Entries scoped to the deleted runs; session and global entries stay.
  cache_.RemoveScope(
      cache::ScopePrefix(deletion.tenant(), v1::CACHE_SCOPE_REQUEST, deletion.root_run_id()),
      &batch_.writes());
  for (const std::string& run_id : deletion.run_ids()) {
    cache_.RemoveScope(cache::ScopePrefix(deletion.tenant(), v1::CACHE_SCOPE_RUN, run_id),
                       &batch_.writes());
  }
  ledgers_.Forget(deletion.root_run_id());
  log::Debug("run deleted by retention")
      .With("run_id", deletion.root_run_id())
      .With("runs", deletion.run_ids().size());
  if (options_.metrics != nullptr) {
    options_.metrics->RunsDeleted(static_cast<int64_t>(deletion.run_ids().size()));
  }
}

}  // namespace taskboard::engine
