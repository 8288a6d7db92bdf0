#include "scheduler/engine/runs/idempotency_keys.h"

#include <optional>

#include "scheduler/store/keys.h"

namespace taskboard::engine {

absl::StatusOr<std::string> IdempotencyKeys::Find(const std::string& key) const {
  if (auto it = by_key_.find(key); it != by_key_.end()) return it->second;
  absl::StatusOr<std::optional<std::string>> stored =
      store_->Get(store::Column::kMeta, store::keys::Idempotency(key));
  if (!stored.ok()) return stored.status();
  return stored->value_or("");
}

void IdempotencyKeys::Record(const std::string& key, const std::string& run_id,
                             store::WriteBatch& writes) {
  writes.Put(store::Column::kMeta, store::keys::Idempotency(key), run_id);
  by_key_[key] = run_id;
}

void IdempotencyKeys::ForgetDeleted(const RunDeletion& deletion) {
  for (const std::string& key : deletion.idempotency_keys()) {
    auto it = by_key_.find(key);
    if (it != by_key_.end() && it->second == deletion.root_run_id()) by_key_.erase(it);
  }
}

}  // namespace taskboard::engine
