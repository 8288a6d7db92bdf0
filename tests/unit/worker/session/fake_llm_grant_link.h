#ifndef TASKBOARD_TESTS_UNIT_WORKER_SESSION_FAKE_LLM_GRANT_LINK_H_
#define TASKBOARD_TESTS_UNIT_WORKER_SESSION_FAKE_LLM_GRANT_LINK_H_

// An LlmGrantLink standing in for the session: it records every message
// LlmGrants sends and refuses them while the test says there is no stream.
// The test plays the scheduler through LlmGrants (OnWelcome, OnGrant,
// OnStreamLost), as the session would.

#include <optional>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "worker/session/llm_grants.h"

namespace taskboard::worker::testing {

class FakeLlmGrantLink : public LlmGrantLink {
 public:
  // Send fails (as with no stream) until Reconnect.
  void Disconnect() {
    absl::MutexLock lock(&mu_);
    connected_ = false;
  }
  void Reconnect() {
    absl::MutexLock lock(&mu_);
    connected_ = true;
  }

  bool Send(v1::ConnectRequest message) override {
    absl::MutexLock lock(&mu_);
    if (!connected_) return false;
    sent_.push_back(std::move(message));
    return true;
  }

  // The `index`-th message sent (0-based) once sent, or nullopt after
  // `timeout`.
  std::optional<v1::ConnectRequest> WaitForMessage(size_t index,
                                                   absl::Duration timeout = absl::Seconds(10)) {
    struct Wait {
      FakeLlmGrantLink* self;
      size_t index;
      bool Ready() const ABSL_NO_THREAD_SAFETY_ANALYSIS { return self->sent_.size() > index; }
    } wait{this, index};
    absl::MutexLock lock(&mu_);
    if (!mu_.AwaitWithTimeout(absl::Condition(&wait, &Wait::Ready), timeout)) return std::nullopt;
    return sent_[index];
  }

  std::vector<v1::ConnectRequest> sent() const {
    absl::MutexLock lock(&mu_);
    return sent_;
  }

 private:
  mutable absl::Mutex mu_;
  bool connected_ ABSL_GUARDED_BY(mu_) = true;
  std::vector<v1::ConnectRequest> sent_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::worker::testing

#endif  // TASKBOARD_TESTS_UNIT_WORKER_SESSION_FAKE_LLM_GRANT_LINK_H_
