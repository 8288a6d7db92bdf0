#include "common/blocked_signals.h"

#include <pthread.h>
#include <time.h>

namespace taskboard {

BlockedSignals::BlockedSignals(std::initializer_list<int> signals) {
  sigemptyset(&signals_);
  for (int signal : signals) sigaddset(&signals_, signal);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
}

int BlockedSignals::Wait() const {
  int received = 0;
  return sigwait(&signals_, &received) == 0 ? received : 0;
}

int BlockedSignals::WaitFor(absl::Duration timeout) const {
  const timespec wait = absl::ToTimespec(timeout);
  const int received = sigtimedwait(&signals_, nullptr, &wait);
  return received > 0 ? received : 0;
}

}  // namespace taskboard
