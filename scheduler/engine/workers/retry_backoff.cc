#include "scheduler/engine/workers/retry_backoff.h"

#include <algorithm>

namespace taskboard::engine {

int64_t RetryBackoff::DelayMs(int failures, absl::BitGen& rng) const {
  if (base_ms <= 0) return 0;
  int64_t delay = base_ms;
  for (int i = 1; i < failures && delay < max_ms; ++i) delay *= 2;
  delay = std::min(delay, max_ms);
  return absl::Uniform<int64_t>(absl::IntervalClosedClosed, rng, delay / 2, delay);
}

}  // namespace taskboard::engine
