#include "scheduler/engine/runs/watch_hub.h"

#include <utility>

namespace taskboard::engine {

uint64_t WatchHub::Subscribe(absl::string_view run_id, std::shared_ptr<WatchSink> sink) {
  absl::MutexLock lock(&mu_);
  uint64_t id = next_id_++;
  sinks_[run_id][id] = std::move(sink);
  return id;
}

void WatchHub::Unsubscribe(absl::string_view run_id, uint64_t subscription) {
  absl::MutexLock lock(&mu_);
  auto it = sinks_.find(run_id);
  if (it == sinks_.end()) return;
  it->second.erase(subscription);
  if (it->second.empty()) sinks_.erase(it);
}

void WatchHub::Publish(absl::string_view run_id, const EventBatch& events) {
  std::vector<std::shared_ptr<WatchSink>> sinks;
  {
    absl::MutexLock lock(&mu_);
    auto it = sinks_.find(run_id);
    if (it == sinks_.end()) return;
    for (const auto& [id, sink] : it->second) sinks.push_back(sink);
  }
  for (const auto& sink : sinks) sink->OnEvents(events);
}

void WatchHub::CloseAll(const std::string& reason) {
  std::vector<std::shared_ptr<WatchSink>> sinks;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [run_id, subscribed] : sinks_) {
      for (const auto& [id, sink] : subscribed) sinks.push_back(sink);
    }
  }
  for (const auto& sink : sinks) sink->OnClose(reason);
}

size_t WatchHub::Watchers(absl::string_view run_id) const {
  absl::MutexLock lock(&mu_);
  auto it = sinks_.find(run_id);
  return it == sinks_.end() ? 0 : it->second.size();
}

}  // namespace taskboard::engine
