#include "worker/process/signal_drain.h"

#include "absl/strings/str_cat.h"
#include "worker/base/subprocess.h"
#include "worker/session/session.h"

namespace taskboard::worker {

SignalDrain::SignalDrain() = default;

void SignalDrain::Start(Session* session, absl::Duration grace) {
  thread_ = std::thread([this, session, grace] {
    // Wakes up now and then to see whether Stop was called.
    while (!stop_.load()) {
      const int signal = signals_.WaitFor(absl::Milliseconds(200));
      if (signal > 0) session->Drain(grace, absl::StrCat("received ", SignalName(signal)));
    }
  });
}

void SignalDrain::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

}  // namespace taskboard::worker
