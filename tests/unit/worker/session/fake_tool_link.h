#ifndef TASKBOARD_TESTS_UNIT_WORKER_SESSION_FAKE_TOOL_LINK_H_
#define TASKBOARD_TESTS_UNIT_WORKER_SESSION_FAKE_TOOL_LINK_H_

// A ToolLink standing in for the session and the scheduler behind it: it
// records every lookup and observation, and answers lookups the way the test
// says: at once with a scripted decision, not at all (the test answers
// through the ToolCaller), or not even sent (no stream).

#include <optional>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "worker/session/tool_caller.h"

namespace taskboard::worker::testing {

class FakeToolLink : public ToolLink {
 public:
  // Must be called before any lookup is sent.
  void set_caller(ToolCaller* caller) { caller_ = caller; }

  // Every later lookup is answered at once with `decision` (its request id
  // filled in).
  void AnswerWith(v1::ToolDecision decision) {
    absl::MutexLock lock(&mu_);
    answer_ = std::move(decision);
  }
  void AnswerWith(v1::ToolDecision::Outcome outcome) {
    v1::ToolDecision decision;
    decision.set_outcome(outcome);
    AnswerWith(decision);
  }
  // Lookups are sent but left for the test to answer.
  void Hold() {
    absl::MutexLock lock(&mu_);
    answer_.reset();
  }
  // No stream: SendLookup fails.
  void Disconnect() {
    absl::MutexLock lock(&mu_);
    connected_ = false;
  }
  // A stream again.
  void Reconnect() {
    absl::MutexLock lock(&mu_);
    connected_ = true;
  }

  bool SendLookup(v1::ConnectRequest lookup) override {
    std::optional<v1::ToolDecision> decision;
    {
      absl::MutexLock lock(&mu_);
      lookups_.push_back(lookup.tool_lookup());
      if (!connected_) return false;
      decision = answer_;
    }
    if (decision) {
      decision->set_request_id(lookup.tool_lookup().request_id());
      caller_->OnDecision(*decision);
    }
    return true;
  }

  void SendObservation(v1::ConnectRequest observation) override {
    absl::MutexLock lock(&mu_);
    observations_.push_back(observation.observation());
  }

  // The `index`-th lookup (0-based) once sent, or nullopt after `timeout`.
  std::optional<v1::ToolLookup> WaitForLookup(size_t index,
                                              absl::Duration timeout = absl::Seconds(10)) {
    struct Wait {
      FakeToolLink* self;
      size_t index;
      bool Ready() const ABSL_NO_THREAD_SAFETY_ANALYSIS { return self->lookups_.size() > index; }
    } wait{this, index};
    absl::MutexLock lock(&mu_);
    if (!mu_.AwaitWithTimeout(absl::Condition(&wait, &Wait::Ready), timeout)) return std::nullopt;
    return lookups_[index];
  }

  std::vector<v1::ToolLookup> lookups() const {
    absl::MutexLock lock(&mu_);
    return lookups_;
  }
  std::vector<v1::ToolObservation> observations() const {
    absl::MutexLock lock(&mu_);
    return observations_;
  }

 private:
  ToolCaller* caller_ = nullptr;
  mutable absl::Mutex mu_;
  bool connected_ ABSL_GUARDED_BY(mu_) = true;
  std::optional<v1::ToolDecision> answer_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::ToolLookup> lookups_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::ToolObservation> observations_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::worker::testing

#endif  // TASKBOARD_TESTS_UNIT_WORKER_SESSION_FAKE_TOOL_LINK_H_
