#ifndef TASKBOARD_TESTS_UNIT_ENGINE_TOOL_CALLS_TOOL_CALLS_FIXTURE_H_
#define TASKBOARD_TESTS_UNIT_ENGINE_TOOL_CALLS_TOOL_CALLS_FIXTURE_H_

// The tool calls component on its own: ToolCalls over the runs fixture and
// a real WorkerManager, with fakes for the loop's EventPoster and a
// client-run PolicyService. Tests connect workers on recording channels,
// dispatch tasks by hand (a lease each) and commit like the engine.
//
//   ToolCallsFixture f;
//   std::string run = f.runs().Start(flow);
//   f.Connect(1, "w1", channel, {"coder"});
//   f.Dispatch(run, "a", "lease-a", "w1", 1);

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/engine/core/clock.h"
#include "scheduler/engine/core/event_poster.h"
#include "scheduler/engine/core/timer_queue.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/tool_calls/policy_service_caller.h"
#include "scheduler/engine/tool_calls/tool_calls.h"
#include "scheduler/engine/workers/worker_manager.h"
#include "tests/unit/engine/read_file_calls.h"
#include "tests/unit/engine/recording_channel.h"
#include "tests/unit/engine/runs/runs_fixture.h"

namespace taskboard::engine::testing {

// Keeps what is posted to the loop until RunPosted.
class FakeEventPoster final : public EventPoster {
 public:
  void Post(std::function<void()> event) override { posted_.push_back(std::move(event)); }
  void RunPosted() {
    std::vector<std::function<void()>> events;
    events.swap(posted_);
    for (auto& event : events) event();
  }

 private:
  std::vector<std::function<void()>> posted_;
};

// Keeps each SelectPriorWork call; a test answers through its `done`.
class RecordingPolicyService final : public PolicyServiceCaller {
 public:
  struct Call {
    std::string address;
    v1::SelectPriorWorkRequest request;
    int64_t timeout_ms = 0;
    std::function<void(absl::StatusOr<v1::SelectPriorWorkResponse>)> done;
  };
  void Select(const std::string& address, v1::SelectPriorWorkRequest request, int64_t timeout_ms,
              std::function<void(absl::StatusOr<v1::SelectPriorWorkResponse>)> done) override {
    calls.push_back({address, std::move(request), timeout_ms, std::move(done)});
  }
  std::vector<Call> calls;
};

class FixedTestClock final : public Clock {
 public:
  int64_t NowMs() const override { return RunsFixture::kStartMs; }
};

class ToolCallsFixture {
 public:
  static constexpr int64_t kNow = RunsFixture::kStartMs;

  explicit ToolCallsFixture(int64_t lease_timeout_ms = 30'000,
                            PolicyServiceCaller* policy_service = nullptr)
      : workers_({&runs_.store(), "scheduler", lease_timeout_ms, 5'000, 3, RetryBackoff(), 1 << 20,
                  nullptr},
                 &runs_.batch(), &timers_, &runs_.runs().active()),
        tool_calls_({&runs_.store(),
                     {},
                     LedgerBook::kDefaultCacheBytes,
                     1 << 20,
                     2 << 20,
                     lease_timeout_ms,
                     policy_service,
                     nullptr},
                    &runs_.batch(), &runs_.runs().active(), &workers_, &poster_) {
    workers_.AddListener(&tool_calls_);
    workers_.SetPriorWork(&tool_calls_.prior_work());
    workers_.Start(&clock_, 60'000);
  }

  RunsFixture& runs() { return runs_; }
  WorkerManager& workers() { return workers_; }
  ToolCalls& tool_calls() { return tool_calls_; }
  FakeEventPoster& poster() { return poster_; }
  ActiveRun& active(const std::string& run_id) { return *runs_.runs().active().Find(run_id); }

  // A worker on `stream_id` offering `agents`, declaring read_file
  // cacheable, with `slots` credits.
  void Connect(uint64_t stream_id, const std::string& worker_id,
               std::shared_ptr<RecordingChannel> channel,
               const std::vector<std::string>& agents = {"coder"}, int slots = 2) {
    v1::Hello hello;
    hello.set_worker_id(worker_id);
    hello.set_slots(slots);
    for (const std::string& agent : agents) hello.add_agents()->set_name(agent);
    *hello.add_tools() = CacheableReadFile();
    workers_.streams().Add(stream_id, hello, std::move(channel), "");
  }
  // Task `task_id` dispatched to `worker_id` under `lease_id`.
  void Dispatch(const std::string& run_id, const std::string& task_id, const std::string& lease_id,
                const std::string& worker_id, uint64_t stream_id) {
    RunState& run = *active(run_id).state;
    MarkDispatched(run.MutableTask(task_id), lease_id, worker_id, kNow);
    workers_.leases().Grant({lease_id, run_id, task_id, worker_id, "", stream_id, kNow + 30'000});
  }
  // `count` calls of `task_id` in the request's ledger, as recorded.
  void Record(const std::string& run_id, const std::string& task_id, int count) {
    const std::string& request_id = active(run_id).state->root_run_id();
    ASSERT_TRUE(tool_calls_.ledgers().Get(request_id).ok());
    for (int i = 0; i < count; ++i) {
      v1::Observation observation;
      observation.set_run_id(run_id);
      observation.set_task_id(task_id);
      observation.set_tool_name("read_file");
      observation.set_args_json(R"({"path":")" + std::to_string(i) + R"(.md"})");
      observation.set_result_json(kReadResult);
      tool_calls_.ledgers().Append(request_id, std::move(observation), runs_.batch().writes());
    }
  }
  void Commit() { runs_.Commit(); }

 private:
  RunsFixture runs_;
  TimerQueue timers_;
  FixedTestClock clock_;
  FakeEventPoster poster_;
  WorkerManager workers_;
  ToolCalls tool_calls_;
};

}  // namespace taskboard::engine::testing

#endif  // TASKBOARD_TESTS_UNIT_ENGINE_TOOL_CALLS_TOOL_CALLS_FIXTURE_H_
