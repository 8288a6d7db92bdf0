#include "scheduler/server/engine_handle.h"

#include <utility>

namespace taskboard::server {

void EngineHandle::Publish(engine::Engine* engine, engine::SavedFlows* saved, store::Store* store,
                           std::function<bool()> still_leading) {
  engine_ = engine;
  saved_ = saved;
  store_ = store;
  still_leading_ = std::move(still_leading);
  // Release: whoever sees published() sees the pointers.
  published_.store(true, std::memory_order_release);
}

void EngineHandle::SetLeader(std::optional<LeaderHint> leader) {
  absl::MutexLock lock(&mu_);
  leader_ = std::move(leader);
}

std::optional<LeaderHint> EngineHandle::leader() const {
  absl::MutexLock lock(&mu_);
  return leader_;
}

absl::Status EngineHandle::CheckLeader() const {
  if (published() && (still_leading_ == nullptr || still_leading_())) return absl::OkStatus();
  return NotLeaderError(leader());
}

}  // namespace taskboard::server
