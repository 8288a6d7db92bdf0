#ifndef TASKBOARD_WORKER_SESSION_PREFETCH_SIZER_H_
#define TASKBOARD_WORKER_SESSION_PREFETCH_SIZER_H_

// How many assignments a worker with --prefetch auto queues ahead of its
// slots. A queued assignment exists to cover the round trip a freed slot
// would otherwise wait for its next task: the time from sending a result to
// the scheduler's ResultAck, which comes back in the same engine batch as
// the assignment a freed place draws. Little's law gives the queue that keeps
// the slots busy: slots * round trip / task duration. Tasks of milliseconds or
// more need no more than the floor (--slots, today's fixed default); no-op
// and cache-hit tasks of microseconds need the ceiling.
//
// The size moves in powers of two between the floor and the ceiling and
// shrinks only when a quarter of the current size would do, so it settles
// instead of following every sample (each change is a Credits message, and a
// shrink is paid for by withholding credits).
//
// Pure arithmetic with the caller's clock; not thread-safe (the session
// guards it with its mutex).

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"

namespace taskboard::worker {

class PrefetchSizer {
 public:
  // floor <= ceiling; both at least 0. slots >= 1.
  PrefetchSizer(int slots, int floor, int ceiling);

  int size() const { return size_; }

  // A task ran in a slot for `duration`.
  void TaskRan(absl::Duration duration);
  // Its result went out at `now` / was acknowledged at `now`. An ack without
  // a recorded send (a result re-sent after a reconnect) is ignored.
  void ResultSent(const std::string& lease_id, absl::Time now);
  void ResultAcked(const std::string& lease_id, absl::Time now);
  // A stream ended: results in flight will be re-sent, so their send times
  // would measure the reconnect, not the scheduler's round trip.
  void ForgetInFlight() { sent_.clear(); }

  // The queue size the samples so far call for (after hysteresis); size()
  // becomes it.
  int Update();

 private:
  const int slots_;
  const int floor_;
  const int ceiling_;
  int size_;
  // Exponentially weighted means, in microseconds; negative until sampled.
  double duration_us_ = -1;
  double round_trip_us_ = -1;
  absl::flat_hash_map<std::string, absl::Time> sent_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_SESSION_PREFETCH_SIZER_H_
