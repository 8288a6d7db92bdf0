#ifndef TASKBOARD_COMMON_SATURATING_ADD_H_
#define TASKBOARD_COMMON_SATURATING_ADD_H_

// Sums of counts a peer reported (token usage: a task's turns, a run's tasks,
// a tenant's day) stop at the largest int64 instead of wrapping to a negative
// total: a worker or a model server reporting absurd counts must not make a
// total a user reads (or a budget compares) come out negative.

#include <cstdint>

namespace taskboard {

// a + b, held at INT64_MAX or INT64_MIN instead of overflowing.
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_SATURATING_ADD_H_
