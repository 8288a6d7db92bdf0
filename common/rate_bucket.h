#ifndef TASKBOARD_COMMON_RATE_BUCKET_H_
#define TASKBOARD_COMMON_RATE_BUCKET_H_

// A per-minute rate limit enforced continuously, the way LLM providers do
// ("60,000 requests per minute may be enforced as 1,000 per second"): a
// bucket refilled at limit/60 units per second that holds at most `burst` of
// them. The scheduler's LLM governor grants calls through one
// (docs/llm-governance.md) and tools/fake-llm answers 429 beyond one, so both
// sides of the governance test count the same way.
//
// It is the generic cell rate algorithm: instead of a level that refills, it
// keeps the theoretical arrival time `tat_` at which the bucket would be full
// again. A call of cost c fits when tat_ <= now + burst_time, and moves tat_
// to max(tat_, now) + c * interval. A call bigger than the whole bucket fits
// once the bucket is full (it then owes the difference), so no call waits
// forever. Costs are adjusted after the fact with Adjust: a call charged its
// estimated tokens is charged its real tokens once they are known.
//
// Not thread-safe; times are passed in, so tests control the clock.

#include <cstdint>

#include "absl/time/time.h"

namespace taskboard {

class RateBucket {
 public:
  // `per_minute` > 0 units per minute; the bucket holds `burst` of refill
  // time (one second's worth of the limit by default).
  explicit RateBucket(double per_minute, absl::Duration burst = absl::Seconds(1));

  double per_minute() const { return per_minute_; }
  absl::Duration burst() const { return burst_; }

  // Zero when a call fits at `now` (whatever its cost: a call bigger than
  // what is left fits a full bucket), else how long until one does.
  absl::Duration WaitFor(absl::Time now) const;
  // Charges `cost` units at `now`; call only when WaitFor(now) is zero.
  void Take(absl::Time now, double cost);
  // Charges (positive) or refunds (negative) `delta` units of an earlier
  // call. A refund never makes the bucket fuller than full.
  void Adjust(absl::Time now, double delta);
  // Changes the limit; what was charged stays charged.
  void SetRate(double per_minute);

 private:
  absl::Duration Interval(double cost) const;

  double per_minute_;
  absl::Duration burst_;
  absl::Time tat_ = absl::InfinitePast();
};

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_RATE_BUCKET_H_
