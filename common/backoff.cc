#include "common/backoff.h"

#include <algorithm>
#include <cstdint>

#include "absl/random/distributions.h"

namespace taskboard {

absl::Duration Backoff::Ceiling(int failures) const {
  absl::Duration ceiling = options_.base;
  for (int i = 0; i < failures && ceiling < options_.cap; ++i) ceiling *= 2;
  return std::min(ceiling, options_.cap);
}

absl::Duration Backoff::Next(absl::BitGenRef random) {
  const int64_t ceiling_us = absl::ToInt64Microseconds(Ceiling(failures_));
  ++failures_;
  return absl::Microseconds(absl::Uniform<int64_t>(absl::IntervalClosed, random, 0, ceiling_us));
}

}  // namespace taskboard
