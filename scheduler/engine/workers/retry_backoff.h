#ifndef TASKBOARD_SCHEDULER_ENGINE_WORKERS_RETRY_BACKOFF_H_
#define TASKBOARD_SCHEDULER_ENGINE_WORKERS_RETRY_BACKOFF_H_

// How long a failed task waits before its next attempt: exponential in the
// number of failures, capped, with jitter so a burst of failures (a flaky
// upstream API) does not retry in lockstep.

#include <cstdint>

#include "absl/random/random.h"

namespace taskboard::engine {

struct RetryBackoff {
  int64_t base_ms = 1000;
  int64_t max_ms = 60'000;

  // Delay before the attempt after `failures` failures (>= 1): the capped
  // exponential base * 2^(failures-1), drawn uniformly from its upper half.
  int64_t DelayMs(int failures, absl::BitGen& rng) const;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_WORKERS_RETRY_BACKOFF_H_
