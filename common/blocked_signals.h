#ifndef TASKBOARD_COMMON_BLOCKED_SIGNALS_H_
#define TASKBOARD_COMMON_BLOCKED_SIGNALS_H_

// Signals a service takes as messages rather than as interruptions: blocked
// in the calling thread and, since a new thread inherits its creator's
// mask, in every thread started after it, then taken one at a time by
// Wait. Both binaries turn SIGTERM and SIGINT into a drain this way (the
// scheduler also SIGHUP, to re-read its files; docs/services.md): a
// signal's handler could do almost nothing safely, a waiting thread can
// log, lock and reload.
//
// Construct it in main() before any other thread starts: a thread that
// started earlier keeps the signals unblocked and may take them with their
// default action. Nothing unblocks them again, so a second SIGTERM during
// shutdown stays pending instead of killing the process.

#include <signal.h>

#include <initializer_list>

#include "absl/time/time.h"

namespace taskboard {

class BlockedSignals {
 public:
  // Blocks `signals` in the calling thread.
  explicit BlockedSignals(std::initializer_list<int> signals);
  BlockedSignals(const BlockedSignals&) = delete;
  BlockedSignals& operator=(const BlockedSignals&) = delete;

  // Takes the next of the signals, waiting as long as it takes; its number,
  // or 0 if waiting failed. Thread-safe, as sigwait is.
  int Wait() const;
  // As Wait, for at most `timeout`: 0 when none arrived within it.
  int WaitFor(absl::Duration timeout) const;

 private:
  sigset_t signals_;
};

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_BLOCKED_SIGNALS_H_
