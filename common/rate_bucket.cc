#include "common/rate_bucket.h"

#include <algorithm>

namespace taskboard {

RateBucket::RateBucket(double per_minute, absl::Duration burst)
    : per_minute_(std::max(per_minute, 1e-9)), burst_(std::max(burst, absl::ZeroDuration())) {}

absl::Duration RateBucket::Interval(double cost) const {
  return absl::Seconds(60.0 * cost / per_minute_);
}

absl::Duration RateBucket::WaitFor(absl::Time now) const {
  const absl::Duration ahead = tat_ - (now + burst_);
  return ahead > absl::ZeroDuration() ? ahead : absl::ZeroDuration();
}

void RateBucket::Take(absl::Time now, double cost) {
  tat_ = std::max(tat_, now) + Interval(cost);
}

void RateBucket::Adjust(absl::Time now, double delta) {
  tat_ = std::max(tat_ + Interval(delta), now);
  // A full bucket is tat_ == now; below that means nothing (InfinitePast).
}

void RateBucket::SetRate(double per_minute) { per_minute_ = std::max(per_minute, 1e-9); }

}  // namespace taskboard
