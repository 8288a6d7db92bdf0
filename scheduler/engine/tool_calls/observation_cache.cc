#include "scheduler/engine/tool_calls/observation_cache.h"

namespace taskboard::engine {
namespace {

// The message object, the list node, the index slot and the key's string
// header, beyond the serialized bytes.
constexpr int64_t kEntryOverheadBytes = 160;

}  // namespace

const v1::Observation* ObservationCache::Find(const std::string& request_id, int64_t seq) {
  auto it = by_key_.find(Key(request_id, seq));
  if (it == by_key_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  entries_.splice(entries_.begin(), entries_, it->second);
  return &it->second->observation;
}

void ObservationCache::Put(const std::string& request_id, v1::Observation observation) {
  const int64_t charge = static_cast<int64_t>(observation.ByteSizeLong()) +
                         static_cast<int64_t>(request_id.size()) + kEntryOverheadBytes;
  Key key(request_id, observation.seq());
  if (auto it = by_key_.find(key); it != by_key_.end()) {
    bytes_ -= it->second->charge;
    entries_.erase(it->second);
    by_key_.erase(it);
  }
  if (charge > budget_bytes_) return;
  entries_.push_front(Entry{key, std::move(observation), charge});
  by_key_.emplace(std::move(key), entries_.begin());
  bytes_ += charge;
  Evict();
}

void ObservationCache::Evict() {
  while (bytes_ > budget_bytes_ && !entries_.empty()) {
    Entry& oldest = entries_.back();
    bytes_ -= oldest.charge;
    by_key_.erase(oldest.key);
    entries_.pop_back();
    ++evictions_;
  }
}

}  // namespace taskboard::engine
