#ifndef TASKBOARD_TESTS_UNIT_ENGINE_DRIVER_HARNESS_H_
#define TASKBOARD_TESTS_UNIT_ENGINE_DRIVER_HARNESS_H_

// Runs a TaskflowDriver on a RunState with no engine around it: the test
// plays the workers, taking READY tasks through the task lifecycle
// (task_lifecycle.h) and calling Advance the way the engine does after every
// change. Time only moves when the test says so.
//
//   DriverHarness run(R"(name: f
//   phases: [{id: a, agent: coder, task: hi}])");
//   run.Start();
//   run.Complete("a", "done");
//   EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/json.h"
#include "gtest/gtest.h"
#include "scheduler/engine/drivers/taskflow_driver.h"
#include "scheduler/engine/state/run_state.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/workers/assignment_to_send.h"
#include "scheduler/flow/proto_value.h"
#include "scheduler/flow/run_args.h"
#include "tests/testing/flow_error_lines.h"

namespace taskboard::engine::testing {

class DriverHarness {
 public:
  explicit DriverHarness(absl::string_view flow_text, const Json& args = Json::object())
      : spec_(taskboard::testing::LoadValidFlow(flow_text)) {
    absl::StatusOr<Json> bound = flow::BindRunArgs(spec_, args);
    EXPECT_TRUE(bound.ok()) << bound.status();
    store::RunRecord record;
    v1::Run& run = *record.mutable_run();
    run.set_run_id("run-1");
    run.set_root_run_id("run-1");
    run.set_flow_name(spec_.name());
    run.set_status(v1::RUN_STATUS_RUNNING);
    if (bound.ok()) *run.mutable_args() = flow::JsonToProtoValue(*bound).struct_value();
    record.set_next_seq(1);
    state_ = std::make_unique<RunState>(std::move(record));
    driver_ = std::make_unique<TaskflowDriver>(spec_);
  }

  const v1::FlowSpec& spec() const { return spec_; }
  RunState& state() { return *state_; }
  int64_t now() const { return now_ms_; }
  void AdvanceClock(int64_t ms) { now_ms_ += ms; }

  void Start() { driver_->Start(*state_, now_ms_); }
  void Advance() { driver_->Advance(*state_, now_ms_); }
  // A fresh driver over the same state, as the engine makes for ResumeRun.
  void RestartDriver() { driver_ = std::make_unique<TaskflowDriver>(spec_); }

  // Ids of the tasks in `state`, in id order.
  std::vector<std::string> TasksIn(v1::TaskState state) const {
    std::vector<std::string> ids;
    for (const auto& [id, task] : state_->tasks()) {
      if (task.task().state() == state) ids.push_back(id);
    }
    return ids;
  }
  std::vector<std::string> Ready() const { return TasksIn(v1::TASK_STATE_READY); }

  const store::TaskRecord& Task(absl::string_view id) const {
    const store::TaskRecord* task = state_->FindTask(id);
    EXPECT_NE(task, nullptr) << "no task " << id;
    static const store::TaskRecord* const kEmpty = new store::TaskRecord();
    return task != nullptr ? *task : *kEmpty;
  }
  bool HasTask(absl::string_view id) const { return state_->FindTask(id) != nullptr; }
  const std::string& Prompt(absl::string_view id) const { return Task(id).assignment().prompt(); }
  // The assignment a worker would be sent for the task.
  v1::Assignment Sent(absl::string_view id) const {
    return AssignmentToSend(Task(id), state_->record());
  }

  const store::PhaseRecord& Phase(absl::string_view id) const {
    for (const store::PhaseRecord& phase : state_->record().phases()) {
      if (phase.status().phase_id() == id) return phase;
    }
    ADD_FAILURE() << "no phase " << id;
    static const store::PhaseRecord* const kEmpty = new store::PhaseRecord();
    return *kEmpty;
  }
  v1::TaskState PhaseState(absl::string_view id) const { return Phase(id).status().state(); }

  const v1::Run& run() const { return state_->record().run(); }
  v1::RunStatus status() const { return run().status(); }

  // Dispatches READY task `id` to a pretend worker under a new lease.
  void Dispatch(absl::string_view id) {
    store::TaskRecord& task = state_->MutableTask(id);
    ASSERT_EQ(task.task().state(), v1::TASK_STATE_READY) << id;
    MarkDispatched(task, "lease-" + std::to_string(++leases_), "worker-1", now_ms_);
    MarkRunning(task, now_ms_);
  }

  // Dispatches READY task `id`, applies `result` and advances the run.
  AttemptOutcome Finish(absl::string_view id, bool success, const std::string& text) {
    Dispatch(id);
    store::TaskRecord& task = state_->MutableTask(id);
    v1::TaskResult result;
    result.set_task_id(std::string(id));
    result.set_lease_id(task.lease_id());
    result.set_success(success);
    (success ? *result.mutable_output() : *result.mutable_error()) = text;
    AttemptOutcome outcome = ApplyResult(task, result, now_ms_, kRetryDelayMs);
    Advance();
    return outcome;
  }
  AttemptOutcome Complete(absl::string_view id, const std::string& output) {
    return Finish(id, true, output);
  }
  AttemptOutcome Fail(absl::string_view id, const std::string& error) {
    return Finish(id, false, error);
  }
  // The backoff of a RETRYING task elapses: READY again (the engine's timer).
  void RetryNow(absl::string_view id) {
    MarkReady(state_->MutableTask(id), now_ms_);
    Advance();
  }

  // Events emitted since the last call (taken from the state's changes).
  std::vector<v1::RunEvent> TakeEvents() { return state_->TakeChanges().events; }

  static constexpr int64_t kRetryDelayMs = 1000;

 private:
  v1::FlowSpec spec_;
  std::unique_ptr<RunState> state_;
  std::unique_ptr<TaskflowDriver> driver_;
  int64_t now_ms_ = 1'700'000'000'000;
  int leases_ = 0;
};

}  // namespace taskboard::engine::testing

#endif  // TASKBOARD_TESTS_UNIT_ENGINE_DRIVER_HARNESS_H_
