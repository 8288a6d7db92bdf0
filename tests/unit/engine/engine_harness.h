#ifndef TASKBOARD_TESTS_UNIT_ENGINE_ENGINE_HARNESS_H_
#define TASKBOARD_TESTS_UNIT_ENGINE_ENGINE_HARNESS_H_

// An Engine over a MemoryStore and a FakeClock, driven synchronously with
// RunOnce (the loop thread is never started), plus pretend workers whose
// streams record what the engine sends them. Every helper that posts to the
// engine also runs one batch, so a test reads like the protocol:
//
//   EngineHarness h;
//   std::string run = h.Submit(kFlow);
//   TestWorker w = h.Connect("w1", {"coder"});
//   v1::Assignment a = h.OnlyAssignment(w);
//   h.Result(w, a, true, "done");

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"
#include "gtest/gtest.h"
#include "scheduler/dispatch/worker_channel.h"
#include "scheduler/engine/core/clock.h"
#include "scheduler/engine/engine.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/flow/run_args.h"
#include "scheduler/store/memory_store.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/unit/engine/recording_channel.h"

namespace taskboard::engine::testing {

struct TestWorker {
  std::string worker_id;
  uint64_t stream_id = 0;
  std::shared_ptr<RecordingChannel> channel;
};

// What a reconnecting worker says it still runs: the assignment's task
// under its lease (Hello.held_tasks).
inline v1::HeldTask Held(const v1::Assignment& assignment) {
  v1::HeldTask held;
  held.set_task_id(assignment.task_id());
  held.set_lease_id(assignment.lease_id());
  return held;
}

class EngineHarness {
 public:
  // Options as the tests assume them unless a test overrides them.
  static EngineOptions DefaultOptions() {
    EngineOptions options;
    options.lease_timeout_ms = 30'000;
    options.heartbeat_interval_ms = 5'000;
    options.scheduling_timeout_ms = 60'000;
    options.retry_backoff.base_ms = 1'000;
    options.retry_backoff.max_ms = 1'000;
    return options;
  }

  explicit EngineHarness(EngineOptions options = DefaultOptions()) : options_(options) {
    Restart();
  }

  // Replaces the engine with a new one over the same store, as a scheduler
  // restart does (the old one never ran a thread, so nothing is in flight).
  void Restart() {
    engine_.reset();
    EngineOptions options = options_;
    options.store = store_override != nullptr ? store_override : &store_;
    options.clock = &clock_;
    absl::StatusOr<std::unique_ptr<Engine>> created = Engine::Create(options);
    EXPECT_TRUE(created.ok()) << created.status();
    if (created.ok()) engine_ = *std::move(created);
  }

  // Set before Restart: the engine uses this store (wrapping store()).
  store::Store* store_override = nullptr;

  Engine& engine() { return *engine_; }
  store::MemoryStore& store() { return store_; }
  FakeClock& clock() { return clock_; }

  // Moves the clock and lets the engine fire what is due.
  void Advance(int64_t ms) {
    clock_.Advance(ms);
    engine_->RunOnce();
  }
  void RunOnce() { engine_->RunOnce(); }

  absl::StatusOr<SubmitResult> TrySubmit(absl::string_view flow_text,
                                         const Json& args = Json::object(),
                                         std::string idempotency_key = "") {
    SubmitRequest request;
    request.spec = taskboard::testing::LoadValidFlow(flow_text);
    absl::StatusOr<Json> bound = flow::BindRunArgs(request.spec, args);
    EXPECT_TRUE(bound.ok()) << bound.status();
    if (bound.ok()) request.args = *bound;
    request.idempotency_key = std::move(idempotency_key);
    return TrySubmitRequest(std::move(request));
  }
  // Submits `request` as built (a caller's run deadline, say).
  absl::StatusOr<SubmitResult> TrySubmitRequest(SubmitRequest request) {
    std::optional<absl::StatusOr<SubmitResult>> result;
    engine_->Submit(std::move(request), [&](absl::StatusOr<SubmitResult> r) { result = r; });
    engine_->RunOnce();
    EXPECT_TRUE(result.has_value()) << "Submit did not reply within one batch";
    return result.value_or(absl::InternalError("no reply"));
  }
  // Submits and returns the run id (a test failure when it is refused).
  std::string Submit(absl::string_view flow_text, const Json& args = Json::object()) {
    absl::StatusOr<SubmitResult> result = TrySubmit(flow_text, args);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? result->run_id : "";
  }

  absl::StatusOr<v1::RunStatus> Cancel(const std::string& run_id, std::string reason = "") {
    std::optional<absl::StatusOr<v1::RunStatus>> result;
    engine_->Cancel(run_id, std::move(reason),
                    [&](absl::StatusOr<v1::RunStatus> r) { result = r; });
    engine_->RunOnce();
    EXPECT_TRUE(result.has_value());
    return result.value_or(absl::InternalError("no reply"));
  }

  absl::StatusOr<ResumeResult> Resume(const std::string& run_id) {
    std::optional<absl::StatusOr<ResumeResult>> result;
    engine_->Resume(run_id, [&](absl::StatusOr<ResumeResult> r) { result = r; });
    engine_->RunOnce();
    EXPECT_TRUE(result.has_value());
    return result.value_or(absl::InternalError("no reply"));
  }

  // A worker stream says Hello. Returns the worker; its channel holds the
  // Welcome and whatever was assigned in the same batch.
  TestWorker Connect(std::string worker_id, const std::vector<std::string>& agents, int slots = 1,
                     const std::vector<v1::HeldTask>& held = {},
                     const std::vector<v1::ToolDeclaration>& tools = {},
                     const std::string& incarnation = "i-1", const std::string& identity = "") {
    TestWorker worker;
    worker.worker_id = std::move(worker_id);
    worker.stream_id = engine_->NewStreamId();
    worker.channel = std::make_shared<RecordingChannel>();
    v1::Hello hello;
    hello.set_worker_id(worker.worker_id);
    hello.set_incarnation(incarnation);
    for (const std::string& agent : agents) hello.add_agents()->set_name(agent);
    hello.set_slots(slots);
    for (const v1::HeldTask& task : held) *hello.add_held_tasks() = task;
    for (const v1::ToolDeclaration& tool : tools) *hello.add_tools() = tool;
    engine_->WorkerHello(worker.stream_id, std::move(hello), worker.channel, identity);
    engine_->RunOnce();
    return worker;
  }
  // The same worker process on a new stream (a reconnect).
  TestWorker Reconnect(const TestWorker& old, const std::vector<std::string>& agents, int slots,
                       const std::vector<v1::HeldTask>& held) {
    return Connect(old.worker_id, agents, slots, held);
  }
  // A new process with the same worker id (a worker restart).
  TestWorker Restarted(const TestWorker& old, const std::vector<std::string>& agents, int slots) {
    return Connect(old.worker_id, agents, slots, {}, {}, "i-2");
  }
  void Disconnect(const TestWorker& worker) {
    engine_->WorkerDisconnected(worker.stream_id);
    engine_->RunOnce();
  }

  void Send(const TestWorker& worker, v1::ConnectRequest message) {
    engine_->WorkerMessage(worker.stream_id, std::move(message));
    engine_->RunOnce();
  }
  void Credits(const TestWorker& worker, int slots) {
    v1::ConnectRequest message;
    message.mutable_credits()->set_slots(slots);
    Send(worker, std::move(message));
  }
  void Started(const TestWorker& worker, const v1::Assignment& assignment) {
    v1::ConnectRequest message;
    message.mutable_task_started()->set_task_id(assignment.task_id());
    message.mutable_task_started()->set_lease_id(assignment.lease_id());
    Send(worker, std::move(message));
  }
  void Heartbeat(const TestWorker& worker, const std::vector<std::string>& lease_ids) {
    v1::ConnectRequest message;
    for (const std::string& id : lease_ids) message.mutable_heartbeat()->add_lease_ids(id);
    Send(worker, std::move(message));
  }
  // Reports a result for `assignment` (no credit is granted back).
  void Result(const TestWorker& worker, const v1::Assignment& assignment, bool success,
              const std::string& text) {
    v1::ConnectRequest message;
    v1::TaskResult& result = *message.mutable_task_result();
    result.set_task_id(assignment.task_id());
    result.set_lease_id(assignment.lease_id());
    result.set_success(success);
    (success ? *result.mutable_output() : *result.mutable_error()) = text;
    result.mutable_usage()->set_output_tokens(10);
    Send(worker, std::move(message));
  }
  // What a real worker does when a task ends: the result, then a free slot.
  void Finish(const TestWorker& worker, const v1::Assignment& assignment, bool success,
              const std::string& text) {
    Started(worker, assignment);
    Result(worker, assignment, success, text);
    Credits(worker, 1);
  }

  // A tool call's lookup (request_id names it in the decision); `announce`:
  // the worker says again that it is executing the call (after a reconnect).
  void Lookup(const TestWorker& worker, const v1::Assignment& assignment,
              const std::string& request_id, const std::string& tool,
              const std::string& args_json, bool announce = false) {
    v1::ConnectRequest message;
    v1::ToolLookup& lookup = *message.mutable_tool_lookup();
    lookup.set_request_id(request_id);
    lookup.set_announce(announce);
    lookup.set_task_id(assignment.task_id());
    lookup.set_lease_id(assignment.lease_id());
    lookup.set_tool_name(tool);
    lookup.set_args_json(args_json);
    Send(worker, std::move(message));
  }
  // A tool call's observation; `error` non-empty reports a failed call.
  void Observe(const TestWorker& worker, const v1::Assignment& assignment, const std::string& tool,
               const std::string& args_json, const std::string& result_json,
               const std::string& call_id = "", const std::string& error = "",
               const v1::ToolDecision* served = nullptr) {
    v1::ConnectRequest message;
    v1::ToolObservation& observation = *message.mutable_observation();
    observation.set_task_id(assignment.task_id());
    observation.set_lease_id(assignment.lease_id());
    observation.set_call_id(call_id);
    observation.set_tool_name(tool);
    observation.set_args_json(args_json);
    observation.set_result_json(result_json);
    observation.set_error(error);
    observation.set_duration_ms(7);
    if (served != nullptr) {
      observation.set_cached(true);
      observation.set_cache_age_ms(served->cache_age_ms());
      *observation.mutable_source_task() = served->source_task();
    }
    Send(worker, std::move(message));
  }
  static std::vector<v1::ToolDecision> Decisions(const std::vector<v1::ConnectResponse>& all) {
    std::vector<v1::ToolDecision> out;
    for (const v1::ConnectResponse& m : all) {
      if (m.has_tool_decision()) out.push_back(m.tool_decision());
    }
    return out;
  }
  v1::GetTaskResponse ReadTaskResponse(const std::string& run_id, const std::string& task_id) {
    absl::StatusOr<v1::GetTaskResponse> task = ReadTask(store_, run_id, task_id);
    EXPECT_TRUE(task.ok()) << task.status();
    return task.ok() ? *std::move(task) : v1::GetTaskResponse();
  }

  // Messages the worker received since the last Take, split by kind.
  static std::vector<v1::Assignment> Assignments(const std::vector<v1::ConnectResponse>& all) {
    std::vector<v1::Assignment> out;
    for (const v1::ConnectResponse& m : all) {
      if (m.has_assignment()) out.push_back(m.assignment());
    }
    return out;
  }
  static std::vector<v1::ResultAck> Acks(const std::vector<v1::ConnectResponse>& all) {
    std::vector<v1::ResultAck> out;
    for (const v1::ConnectResponse& m : all) {
      if (m.has_result_ack()) out.push_back(m.result_ack());
    }
    return out;
  }
  static std::vector<v1::Cancel> Cancels(const std::vector<v1::ConnectResponse>& all) {
    std::vector<v1::Cancel> out;
    for (const v1::ConnectResponse& m : all) {
      if (m.has_cancel()) out.push_back(m.cancel());
    }
    return out;
  }
  // The assignments the worker received since the last Take.
  std::vector<v1::Assignment> TakeAssignments(const TestWorker& worker) {
    return Assignments(worker.channel->Take());
  }
  // Exactly one new assignment (a test failure otherwise).
  v1::Assignment OnlyAssignment(const TestWorker& worker) {
    std::vector<v1::Assignment> assignments = TakeAssignments(worker);
    EXPECT_EQ(assignments.size(), 1u);
    return assignments.empty() ? v1::Assignment() : assignments.front();
  }

  // Read side (what clients see: committed state only).
  v1::Run ReadRunView(const std::string& run_id) {
    absl::StatusOr<v1::Run> run = ReadRun(store_, run_id);
    EXPECT_TRUE(run.ok()) << run.status();
    return run.ok() ? *std::move(run) : v1::Run();
  }
  v1::RunStatus Status(const std::string& run_id) { return ReadRunView(run_id).status(); }
  v1::Task ReadTaskView(const std::string& run_id, const std::string& task_id) {
    absl::StatusOr<v1::GetTaskResponse> task = ReadTask(store_, run_id, task_id);
    EXPECT_TRUE(task.ok()) << task.status();
    return task.ok() ? task->task() : v1::Task();
  }
  std::vector<v1::RunEvent> Events(const std::string& run_id, int64_t after_seq = 0) {
    std::vector<v1::RunEvent> events;
    absl::Status read = ReadEvents(store_, run_id, after_seq, [&](v1::RunEvent& event) {
      events.push_back(event);
      return true;
    });
    EXPECT_TRUE(read.ok()) << read;
    return events;
  }

 private:
  EngineOptions options_;
  store::MemoryStore store_;
  FakeClock clock_;
  std::unique_ptr<Engine> engine_;
};

}  // namespace taskboard::engine::testing

#endif  // TASKBOARD_TESTS_UNIT_ENGINE_ENGINE_HARNESS_H_
