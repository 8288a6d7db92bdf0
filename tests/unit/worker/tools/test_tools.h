#ifndef TASKBOARD_TESTS_UNIT_WORKER_TOOLS_TEST_TOOLS_H_
#define TASKBOARD_TESTS_UNIT_WORKER_TOOLS_TEST_TOOLS_H_

// In-process tools for tool-path tests: they count their executions, so a
// test can tell a cached call (not executed) from a fresh one.

#include <poll.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "worker/tools/tool.h"

namespace taskboard::worker::testing {

// `echo`: returns {"echo": <args>} and counts executions. With
// `block_until_cancelled`, waits for the context's token first (for tests of
// cancellation); with `fail`, returns that error instead.
class CountingTool : public Tool {
 public:
  explicit CountingTool(std::string name = "echo", bool cacheable = true) {
    declaration_.set_name(std::move(name));
    declaration_.set_description("test tool");
    declaration_.set_parameters_schema_json(R"({"type":"object"})");
    declaration_.set_cacheable(cacheable);
  }

  const v1::ToolDeclaration& declaration() const override { return declaration_; }
  std::string source() const override { return "test"; }

  absl::StatusOr<std::string> Execute(absl::string_view args_json,
                                      const ToolContext& context) const override {
    {
      absl::MutexLock lock(&mu_);
      last_workdir_ = context.workdir.string();
      ++executions_;
    }
    if (block_until_cancelled) {
      while (!context.cancel->cancelled()) {
        pollfd wait = {context.cancel->fd(), POLLIN, 0};
        poll(&wait, 1, 100);
      }
      return absl::CancelledError(absl::StrCat("cancelled: ", context.cancel->reason()));
    }
    if (!fail.empty()) return absl::UnknownError(fail);
    return absl::StrCat(R"({"echo":)", args_json, "}");
  }

  int executions() const {
    absl::MutexLock lock(&mu_);
    return executions_;
  }
  // Whether `n` executions have started within `timeout`.
  bool WaitForExecutions(int n, absl::Duration timeout = absl::Seconds(10)) const {
    struct Wait {
      const CountingTool* self;
      int n;
      bool Done() const ABSL_NO_THREAD_SAFETY_ANALYSIS { return self->executions_ >= n; }
    } wait{this, n};
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(absl::Condition(&wait, &Wait::Done), timeout);
  }
  std::string last_workdir() const {
    absl::MutexLock lock(&mu_);
    return last_workdir_;
  }

  bool block_until_cancelled = false;
  std::string fail;

 private:
  v1::ToolDeclaration declaration_;
  mutable absl::Mutex mu_;
  mutable int executions_ ABSL_GUARDED_BY(mu_) = 0;
  mutable std::string last_workdir_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::worker::testing

#endif  // TASKBOARD_TESTS_UNIT_WORKER_TOOLS_TEST_TOOLS_H_
