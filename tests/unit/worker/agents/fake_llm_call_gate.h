#ifndef TASKBOARD_TESTS_UNIT_WORKER_AGENTS_FAKE_LLM_CALL_GATE_H_
#define TASKBOARD_TESTS_UNIT_WORKER_AGENTS_FAKE_LLM_CALL_GATE_H_

// An LlmCallGate standing in for the scheduler's grants: it records every
// Acquire and Report, and answers each Acquire the way the test says: a
// fresh grant id ("g1", "g2", ...), "" (ungoverned), or a refusal.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "worker/agents/llm_call_gate.h"

namespace taskboard::worker::testing {

class FakeLlmCallGate : public LlmCallGate {
 public:
  struct Reported {
    std::string grant_id;
    LlmCallPlan plan;
    LlmCallEnd end;
  };

  // Every later Acquire fails with `status`.
  void Refuse(absl::Status status) {
    absl::MutexLock lock(&mu_);
    refusal_ = std::move(status);
  }
  // Every later Acquire returns "": the call goes ahead ungoverned.
  void Ungoverned() {
    absl::MutexLock lock(&mu_);
    ungoverned_ = true;
  }

  absl::StatusOr<std::string> Acquire(const LlmCallPlan& plan, const CancelToken* cancel,
                                      absl::Time deadline) override {
    absl::MutexLock lock(&mu_);
    acquired_.push_back(plan);
    deadlines_.push_back(deadline);
    if (refusal_.has_value()) return *refusal_;
    if (ungoverned_) return std::string();
    return absl::StrCat("g", acquired_.size());
  }

  void Report(const std::string& grant_id, const LlmCallPlan& plan,
              const LlmCallEnd& end) override {
    absl::MutexLock lock(&mu_);
    reported_.push_back({grant_id, plan, end});
  }

  std::vector<LlmCallPlan> acquired() const {
    absl::MutexLock lock(&mu_);
    return acquired_;
  }
  std::vector<absl::Time> deadlines() const {
    absl::MutexLock lock(&mu_);
    return deadlines_;
  }
  std::vector<Reported> reported() const {
    absl::MutexLock lock(&mu_);
    return reported_;
  }

 private:
  mutable absl::Mutex mu_;
  std::optional<absl::Status> refusal_ ABSL_GUARDED_BY(mu_);
  bool ungoverned_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<LlmCallPlan> acquired_ ABSL_GUARDED_BY(mu_);
  std::vector<absl::Time> deadlines_ ABSL_GUARDED_BY(mu_);
  std::vector<Reported> reported_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::worker::testing

#endif  // TASKBOARD_TESTS_UNIT_WORKER_AGENTS_FAKE_LLM_CALL_GATE_H_
