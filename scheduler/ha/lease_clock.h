#ifndef TASKBOARD_SCHEDULER_HA_LEASE_CLOCK_H_
#define TASKBOARD_SCHEDULER_HA_LEASE_CLOCK_H_

// The clock a leader's lease deadline is kept on. It must only move forward
// and must keep counting while the process is stopped (SIGSTOP) or the
// machine suspended, so that a leader that wakes up late knows at once that
// its lease ran out: CLOCK_BOOTTIME, never the wall clock. Its readings are
// comparable between processes on one machine (the tests compare a stopped
// leader's deadline with its successor's election).
//
// Thread safety: Now may be called from any thread.

#include "absl/time/time.h"

namespace taskboard::ha {

class LeaseClock {
 public:
  virtual ~LeaseClock() = default;
  // Time since an arbitrary origin (the machine's boot).
  virtual absl::Duration Now() const = 0;
};

// CLOCK_BOOTTIME.
class BootClock final : public LeaseClock {
 public:
  absl::Duration Now() const override;
};

// A process-wide BootClock.
LeaseClock* DefaultLeaseClock();

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_LEASE_CLOCK_H_
