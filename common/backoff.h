#ifndef TASKBOARD_COMMON_BACKOFF_H_
#define TASKBOARD_COMMON_BACKOFF_H_

// Reconnect delays: exponential with "full jitter" (a uniform draw between 0
// and min(cap, base * 2^failures)), so a fleet of workers that lost the same
// scheduler does not reconnect in lock step. Not thread-safe.

#include "absl/random/bit_gen_ref.h"
#include "absl/time/time.h"

namespace taskboard {

struct BackoffOptions {
  absl::Duration base = absl::Milliseconds(100);
  absl::Duration cap = absl::Seconds(5);
};

class Backoff {
 public:
  explicit Backoff(BackoffOptions options) : options_(options) {}

  // The delay before the next attempt; counts one more failure.
  absl::Duration Next(absl::BitGenRef random);

  // After a successful connection: the next delay starts from `base` again.
  void Reset() { failures_ = 0; }

  int failures() const { return failures_; }

  // The largest delay Next can return after `failures` earlier failures.
  absl::Duration Ceiling(int failures) const;

 private:
  const BackoffOptions options_;
  int failures_ = 0;
};

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_BACKOFF_H_
