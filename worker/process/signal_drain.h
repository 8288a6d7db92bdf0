#ifndef TASKBOARD_WORKER_PROCESS_SIGNAL_DRAIN_H_
#define TASKBOARD_WORKER_PROCESS_SIGNAL_DRAIN_H_

// Turns SIGTERM and SIGINT into a drain of the worker's session (a repeated
// signal keeps the first deadline). The signals must be blocked in every
// thread, so the constructor blocks them (common/blocked_signals.h) and must
// run before any other thread starts: main() makes one first.

#include <signal.h>

#include <atomic>
#include <thread>

#include "absl/time/time.h"
#include "common/blocked_signals.h"

namespace taskboard::worker {

class Session;

class SignalDrain {
 public:
  SignalDrain();
  SignalDrain(const SignalDrain&) = delete;
  SignalDrain& operator=(const SignalDrain&) = delete;

  // Waits for the signals on a thread of its own, draining `session` (which
  // must outlive Stop) with `grace` for each.
  void Start(Session* session, absl::Duration grace);
  // Stops that thread (within 200 ms); the signals stay blocked.
  void Stop();

 private:
  BlockedSignals signals_{SIGTERM, SIGINT};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_PROCESS_SIGNAL_DRAIN_H_
