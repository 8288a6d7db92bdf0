#ifndef TASKBOARD_SCHEDULER_SERVER_WATCH_LINGER_H_
#define TASKBOARD_SCHEDULER_SERVER_WATCH_LINGER_H_

// When a WatchRun stream holds its next write a moment for more events
// (decision 132). A watcher that asked for batches (max_events_per_message
// over 1) is written as soon as an event comes and no write is in flight, so
// a busy run that publishes a few events per commit sent a message every
// millisecond or so, each costing the scheduler a write and the follower a
// wake-up and a parse. Holding a small write for up to kLinger lets the
// events of the next commits join it; a write that already carries many
// events, the run's end and the replay are never held, and the hold never
// outlasts kLinger. Core logic: the reactor (watch_reactor.h) keeps the
// state and the timer.

#include <cstddef>

#include "absl/time/time.h"

namespace taskboard::server {

struct WatchLinger {
  // The longest a write is held. A follower's view is redrawn at most every
  // 50 ms: a few milliseconds more do not show.
  static constexpr absl::Duration kLinger = absl::Milliseconds(4);
  // A write of fewer events than this is small: the next one may be held.
  static constexpr size_t kSmallWrite = 64;

  // What the reactor knows when it could start a write.
  struct Stream {
    // The request's max_events_per_message, capped (1: one event per
    // response, never held).
    int events_per_message = 1;
    // Still replaying stored events (pages go out as they are read).
    bool replaying = false;
    // run_finished is queued: the run's end goes out at once.
    bool run_over = false;
    // Events queued for the next write.
    size_t queued = 0;
    // Events the previous write carried (0 before the first).
    size_t last_write = 0;
    // This write was held already.
    bool held = false;
  };

  // True when the write should wait up to kLinger before it starts.
  static bool Hold(const Stream& stream);
  // True when a held write should go now rather than at the end of the hold:
  // the run ended or a whole message is queued.
  static bool CutShort(const Stream& stream);
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_WATCH_LINGER_H_
