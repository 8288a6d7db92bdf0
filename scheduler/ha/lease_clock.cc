#include "scheduler/ha/lease_clock.h"

#include <time.h>

namespace taskboard::ha {

absl::Duration BootClock::Now() const {
  timespec now;
  clock_gettime(CLOCK_BOOTTIME, &now);
  return absl::DurationFromTimespec(now);
}

LeaseClock* DefaultLeaseClock() {
  static BootClock* clock = new BootClock();
  return clock;
}

}  // namespace taskboard::ha
