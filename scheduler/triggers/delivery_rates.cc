#include "scheduler/triggers/delivery_rates.h"

#include <algorithm>

namespace taskboard::triggers {
namespace {

// RateBucket's burst is refill time: `burst` deliveries at once fit a full
// bucket when it holds burst - 1 intervals.
absl::Duration BurstTime(double per_minute, int64_t burst) {
  return absl::Seconds(60.0 / per_minute) * static_cast<double>(std::max<int64_t>(burst, 1) - 1);
}

}  // namespace

absl::Duration DeliveryRates::Take(const std::string& key, double per_minute, int64_t burst,
                                   absl::Time now) {
  auto it = buckets_.find(key);
  if (it == buckets_.end()) {
    it = buckets_.emplace(key, RateBucket(per_minute, BurstTime(per_minute, burst))).first;
  } else if (it->second.per_minute() != per_minute ||
             it->second.burst() != BurstTime(per_minute, burst)) {
    it->second = RateBucket(per_minute, BurstTime(per_minute, burst));
  }
  const absl::Duration wait = it->second.WaitFor(now);
  if (wait > absl::ZeroDuration()) return wait;
  it->second.Take(now, 1);
  return absl::ZeroDuration();
}

absl::Duration DeliveryRates::WaitFor(const std::string& key, absl::Time now) const {
  auto it = buckets_.find(key);
  return it == buckets_.end() ? absl::ZeroDuration() : it->second.WaitFor(now);
}

}  // namespace taskboard::triggers
