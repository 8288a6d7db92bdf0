#include "worker/process/signal_drain.h"

#include <pthread.h>
#include <time.h>

#include "absl/strings/str_cat.h"
#include "worker/base/subprocess.h"
#include "worker/session/session.h"

namespace taskboard::worker {

SignalDrain::SignalDrain() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGTERM);
  sigaddset(&signals_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
}

void SignalDrain::Start(Session* session, absl::Duration grace) {
  thread_ = std::thread([this, session, grace] {
    const timespec poll_interval = {0, 200 * 1000 * 1000};
    while (!stop_.load()) {
      const int signal = sigtimedwait(&signals_, nullptr, &poll_interval);
      if (signal > 0) session->Drain(grace, absl::StrCat("received ", SignalName(signal)));
    }
  });
}

void SignalDrain::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

}  // namespace taskboard::worker
