#include "scheduler/engine/runs/retention.h"

#include <string>
#include <utility>

#include "absl/strings/escaping.h"
#include "common/log/log.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {
namespace {

// How often the index is looked at while nothing is being deleted: one seek.
constexpr int64_t kRetentionCheckMs = 1'000;

}  // namespace

void Retention::Sweep() {
  if (options_.retention_ms <= 0) return;
  if (!deletion_.has_value() && !PlanNext()) return;
  absl::StatusOr<bool> done = deletion_->Step(*store_, options_.keys_per_batch, batch_->writes());
  if (!done.ok()) {
    log::Warn("retention stopped deleting a run; it is tried again later")
        .With("run_id", deletion_->root_run_id())
        .With("error", done.status());
    deletion_.reset();
    return;
  }
  if (!*done) return;
  Finish(*deletion_);
  deletion_.reset();
  next_check_ms_ = batch_->now_ms();  // there may be more to delete
}

bool Retention::PlanNext() {
  const int64_t now_ms = batch_->now_ms();
  store::WriteBatch& writes = batch_->writes();
  if (now_ms < next_check_ms_) return false;
  next_check_ms_ = now_ms + kRetentionCheckMs;
  std::string index_key;
  std::optional<store::keys::FinishedKey> oldest;
  absl::Status scanned = store_->ScanPrefix(store::Column::kMeta, store::keys::FinishedRuns(),
                                            [&](absl::string_view key, absl::string_view) {
                                              index_key = std::string(key);
                                              oldest = store::keys::ParseFinishedRun(key);
                                              return false;
                                            });
  if (!scanned.ok() || index_key.empty()) return false;
  if (!oldest.has_value()) {
    log::Warn("dropping a retention index key that does not decode")
        .With("key", absl::CHexEscape(index_key));
    writes.Delete(store::Column::kMeta, index_key);
    return false;
  }
  if (oldest->finished_ms > now_ms - options_.retention_ms) return false;  // nothing old enough
  if (runs_->contains(oldest->run_id)) {
    // Resumed since it finished: it is indexed again when it ends.
    writes.Delete(store::Column::kMeta, index_key);
    next_check_ms_ = now_ms;
    return false;
  }
  absl::StatusOr<RunDeletion> planned =
      RunDeletion::Plan(*store_, oldest->run_id, oldest->finished_ms, index_key);
  if (!planned.ok()) {
    // Gone already, or resumed and finished again later (a newer entry
    // stands for it): only this entry is left.
    if (!absl::IsNotFound(planned.status()) && !absl::IsFailedPrecondition(planned.status())) {
      log::Warn("retention could not read a run; it is tried again later")
          .With("run_id", oldest->run_id)
          .With("error", planned.status());
      return false;
    }
    writes.Delete(store::Column::kMeta, index_key);
    next_check_ms_ = now_ms;
    return false;
  }
  deletion_ = *std::move(planned);
  return true;
}

void Retention::Finish(const RunDeletion& deletion) {
  keys_->ForgetDeleted(deletion);
  listener_->OnRootRunDeleted(deletion);
  log::Debug("run deleted by retention")
      .With("run_id", deletion.root_run_id())
      .With("runs", deletion.run_ids().size());
  if (metrics_ != nullptr) metrics_->RunsDeleted(static_cast<int64_t>(deletion.run_ids().size()));
}

}  // namespace taskboard::engine
