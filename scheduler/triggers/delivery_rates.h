#ifndef TASKBOARD_SCHEDULER_TRIGGERS_DELIVERY_RATES_H_
#define TASKBOARD_SCHEDULER_TRIGGERS_DELIVERY_RATES_H_

// The token buckets that bound how fast deliveries come
// (docs/schedules.md#rate-limits): one per trigger (its `rate`) and one per
// tenant (--triggers-tenant-per-minute), so a flood on one trigger cannot
// starve the tenant's others, and a tenant cannot flood the scheduler with
// many triggers. Over either, the caller is told how long to wait (HTTP 429
// with Retry-After). Kept in memory on the engine's loop: a restart refills
// them (decision 187).
//
// Not thread-safe; times are passed in, so tests control the clock.

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "common/rate_bucket.h"

namespace taskboard::triggers {

class DeliveryRates {
 public:
  // Zero when a delivery of `key` fits `per_minute` with `burst` at once,
  // and takes it; else how long until one fits (nothing is taken). A
  // changed rate applies from this call on.
  absl::Duration Take(const std::string& key, double per_minute, int64_t burst, absl::Time now);
  // How long until one fits, without taking it (zero: it does).
  absl::Duration WaitFor(const std::string& key, absl::Time now) const;
  // Drops a key's bucket (its trigger was deleted).
  void Forget(const std::string& key) { buckets_.erase(key); }
  size_t size() const { return buckets_.size(); }

 private:
  absl::flat_hash_map<std::string, RateBucket> buckets_;
};

}  // namespace taskboard::triggers

#endif  // TASKBOARD_SCHEDULER_TRIGGERS_DELIVERY_RATES_H_
