#include "scheduler/policy/narrative_cache.h"

#include <utility>

namespace taskboard::policy {

const std::string* NarrativeCache::Find(int64_t watermark) const {
  auto it = by_watermark_.find(watermark);
  return it == by_watermark_.end() ? nullptr : &it->second;
}

std::optional<NarrativeCache::Narrative> NarrativeCache::Latest(int64_t at_most) const {
  auto it = by_watermark_.upper_bound(at_most);
  if (it == by_watermark_.begin()) return std::nullopt;
  --it;
  return Narrative{it->first, it->second};
}

void NarrativeCache::Put(int64_t watermark, std::string text) {
  by_watermark_[watermark] = std::move(text);
  while (static_cast<int>(by_watermark_.size()) > kKept) by_watermark_.erase(by_watermark_.begin());
}

}  // namespace taskboard::policy
