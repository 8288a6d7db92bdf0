#ifndef TASKBOARD_TESTS_UNIT_WORKER_AGENTS_FAKE_AGENT_CONTEXT_H_
#define TASKBOARD_TESTS_UNIT_WORKER_AGENTS_FAKE_AGENT_CONTEXT_H_

// An AgentContext for agent tests: records every output chunk and lets the
// test cancel the run and wait (with a deadline) for output to show up. Its
// ToolEnvironment returns what the test set and records the directory asked
// for; its llm_gate is the one the test set, if any.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "worker/agents/agent.h"

namespace taskboard::worker::testing {

class FakeAgentContext : public AgentContext {
 public:
  void EmitOutput(absl::string_view delta) override {
    absl::MutexLock lock(&mu_);
    chunks_.emplace_back(delta);
  }
  const CancelToken& cancellation() const override { return cancel_; }
  LlmCallGate* llm_gate() override { return llm_gate_; }
  std::vector<std::pair<std::string, std::string>> ToolEnvironment(
      const std::filesystem::path& workdir) override {
    absl::MutexLock lock(&mu_);
    tool_workdir_ = workdir;
    return tool_environment_;
  }

  CancelToken& cancel() { return cancel_; }
  // What llm_gate() returns (default none); must outlive the run.
  void set_llm_gate(LlmCallGate* gate) { llm_gate_ = gate; }
  void set_tool_environment(std::vector<std::pair<std::string, std::string>> vars) {
    absl::MutexLock lock(&mu_);
    tool_environment_ = std::move(vars);
  }
  std::filesystem::path tool_workdir() const {
    absl::MutexLock lock(&mu_);
    return tool_workdir_;
  }

  std::string output() const {
    absl::MutexLock lock(&mu_);
    return OutputLocked();
  }
  int chunks() const {
    absl::MutexLock lock(&mu_);
    return static_cast<int>(chunks_.size());
  }

  // Whether the output contains `text` within `timeout`.
  bool WaitForOutput(absl::string_view text, absl::Duration timeout) const {
    struct Wait {
      const FakeAgentContext* self;
      std::string text;
    } wait{this, std::string(text)};
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(absl::Condition(
                                    +[](Wait* w) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                                      return w->self->OutputLocked().find(w->text) !=
                                             std::string::npos;
                                    },
                                    &wait),
                                timeout);
  }

 private:
  std::string OutputLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::string all;
    for (const std::string& chunk : chunks_) all += chunk;
    return all;
  }

  mutable absl::Mutex mu_;
  std::vector<std::string> chunks_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<std::string, std::string>> tool_environment_ ABSL_GUARDED_BY(mu_);
  std::filesystem::path tool_workdir_ ABSL_GUARDED_BY(mu_);
  CancelToken cancel_;
  LlmCallGate* llm_gate_ = nullptr;
};

}  // namespace taskboard::worker::testing

#endif  // TASKBOARD_TESTS_UNIT_WORKER_AGENTS_FAKE_AGENT_CONTEXT_H_
