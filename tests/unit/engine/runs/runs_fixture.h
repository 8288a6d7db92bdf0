#ifndef TASKBOARD_TESTS_UNIT_ENGINE_RUNS_RUNS_FIXTURE_H_
#define TASKBOARD_TESTS_UNIT_ENGINE_RUNS_RUNS_FIXTURE_H_

// The runs component on its own: a RunManager over a MemoryStore and one
// LoopBatch, with fakes for the interfaces it calls out through (the lease
// revoker, the run listener, the commit observer). Commit() does what the
// engine's commit does with the runs: writes the batch to the store, runs
// its effects and drops the runs it finished.
//
//   RunsFixture f;
//   std::string run = f.Submit("name: f\nagent: a\ntask: hi");
//   f.Commit();

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "scheduler/dispatch/worker_registry.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/core/timer_queue.h"
#include "scheduler/engine/runs/lease_revoker.h"
#include "scheduler/engine/runs/run_commit.h"
#include "scheduler/engine/runs/run_listener.h"
#include "scheduler/engine/runs/run_manager.h"
#include "scheduler/store/memory_store.h"
#include "tests/testing/flow_error_lines.h"

namespace taskboard::engine::testing {

class FakeLeaseRevoker final : public LeaseRevoker {
 public:
  void Revoke(const std::vector<std::string>& lease_ids, const std::string& reason) override {
    for (const std::string& lease_id : lease_ids) revoked.emplace_back(lease_id, reason);
  }
  std::vector<std::pair<std::string, std::string>> revoked;  // lease id, reason
};

class FakeRunListener final : public RunListener {
 public:
  void OnRunLeftMemory(const std::string& run_id) override { left.push_back(run_id); }
  void OnRootRunDeleted(const RunDeletion& deletion) override {
    deleted.push_back(deletion.root_run_id());
  }
  std::vector<std::string> left;
  std::vector<std::string> deleted;
};

class FakeCommitObserver final : public CommitObserver {
 public:
  void ApprovalTaskCommitted(const ActiveRun& run, const store::TaskRecord& task) override {
    approvals.push_back(task.task().task_id());
  }
  void TaskRemoved(const std::string& run_id, const std::string& task_id) override {
    removed.push_back(task_id);
  }
  void RunEnded(const std::string& run_id) override { ended.push_back(run_id); }
  std::vector<std::string> approvals;
  std::vector<std::string> removed;
  std::vector<std::string> ended;
};

class RunsFixture {
 public:
  static constexpr int64_t kStartMs = 1'700'000'000'000;

  explicit RunsFixture(Retention::Options retention = {})
      : runs_({&store_, RunLimits(), "", retention, nullptr}, &batch_, &timers_, &revoker_,
              &listener_) {
    batch_.Begin(kStartMs);
  }

  RunManager& runs() { return runs_; }
  LoopBatch& batch() { return batch_; }
  TimerQueue& timers() { return timers_; }
  store::MemoryStore& store() { return store_; }
  FakeLeaseRevoker& revoker() { return revoker_; }
  FakeRunListener& listener() { return listener_; }
  FakeCommitObserver& observer() { return observer_; }
  // The commit shows its approval tasks to `observer` instead of the fake
  // (approvals/approvals.h in its own tests).
  void ObserveWith(CommitObserver* observer) { observing_ = observer; }

  // SubmitRun as the engine posts it; the reply comes with Commit().
  void Submit(absl::string_view flow_text, std::string idempotency_key,
              std::function<void(absl::StatusOr<SubmitResult>)> done) {
    SubmitRequest request;
    request.spec = taskboard::testing::LoadValidFlow(flow_text);
    request.idempotency_key = std::move(idempotency_key);
    runs_.Submit(request, workers_, done);
  }
  // Submits, commits, starts the driver in the next batch and commits
  // again; returns the run id.
  std::string Start(absl::string_view flow_text, std::string idempotency_key = "") {
    std::optional<absl::StatusOr<SubmitResult>> reply;
    Submit(flow_text, std::move(idempotency_key),
           [&](absl::StatusOr<SubmitResult> result) { reply = std::move(result); });
    Commit();
    runs_.starting().StartPending();
    Commit();
    EXPECT_TRUE(reply.has_value() && reply->ok());
    return reply.has_value() && reply->ok() ? (*reply)->run_id : "";
  }

  // The engine's commit of the runs: records and events written, effects
  // run, finished runs dropped. Returns the committed events by run.
  CommittedRuns Commit() {
    CommittedRuns committed = CommitTouchedRuns(runs_.active(), batch_, RunLimits().max_event_bytes,
                                                nullptr, *observing_);
    batch_.ClearTouched();
    EXPECT_TRUE(store_.Write(batch_.TakeWrites()).ok());
    for (auto& effect : batch_.TakeEffects()) effect();
    for (const std::string& run_id : committed.finished) {
      listener_.OnRunLeftMemory(run_id);
      runs_.active().Erase(run_id);
    }
    return committed;
  }

 private:
  store::MemoryStore store_;
  LoopBatch batch_;
  TimerQueue timers_;
  FakeLeaseRevoker revoker_;
  FakeRunListener listener_;
  FakeCommitObserver observer_;
  dispatch::WorkerRegistry workers_;
  RunManager runs_;
  CommitObserver* observing_ = &observer_;
};

}  // namespace taskboard::engine::testing

#endif  // TASKBOARD_TESTS_UNIT_ENGINE_RUNS_RUNS_FIXTURE_H_
