#include "scheduler/engine/runs/nested_runs.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/log/log.h"
#include "scheduler/engine/runs/run_manager.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/engine/runs/started_runs.h"
#include "scheduler/engine/state/child_runs.h"
#include "scheduler/engine/state/run_control.h"
#include "scheduler/engine/state/run_trace.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/flow/proto_value.h"

namespace taskboard::engine {

void NestedRuns::Advance() {
  ActiveRuns& active = runs_->active();
  const int64_t now_ms = batch_->now_ms();
  std::vector<std::string> pending(batch_->touched().begin(), batch_->touched().end());
  while (!pending.empty()) {
    const std::string run_id = std::move(pending.back());
    pending.pop_back();
    ActiveRun* entry = active.Find(run_id);
    if (entry == nullptr) continue;
    // Starting a child inserts into the active runs, so hold the run, not
    // the entry.
    RunState* run = entry->state.get();
    Driver* driver = entry->driver.get();
    const v1::Run& view = run->record().run();
    if (IsTerminal(view.status())) {
      // A driver may end its run while tasks still run (a supervisor failing
      // on one worker's failure): they stop, and no worker keeps spending.
      const std::string ended = absl::StrCat("the run ended ", RunStatusWord(view.status()));
      revoker_->Revoke(CancelOpenTasks(*run, ended, now_ms), ended);
      if (!view.parent_run_id().empty() && SettleParentTask(*run)) {
        pending.push_back(view.parent_run_id());
      }
      for (const std::string& child_id : view.child_run_ids()) {
        ActiveRun* child = active.Find(child_id);
        if (child == nullptr || IsTerminal(child->state->record().run().status())) continue;
        runs_->CancelActive(*child->state, absl::StrCat("its parent run ", run_id, " ended ",
                                                        RunStatusWord(view.status())));
        pending.push_back(child_id);
      }
      continue;
    }
    std::vector<std::string> starts;
    std::vector<std::string> resumes;
    for (const std::string& task_id : run->changed_tasks()) {
      const store::TaskRecord* task = run->FindTask(task_id);
      if (task == nullptr) continue;
      if (StartsChildRun(*task)) {
        starts.push_back(task_id);
      } else if (AwaitsChildRun(*task) && !active.contains(task->task().child_run_id())) {
        resumes.push_back(task_id);  // the parent was resumed (pattern_resume.h)
      }
    }
    bool failed_to_start = false;
    for (const std::string& task_id : resumes) {
      std::string child_id = ResumeChildRun(*run, task_id);
      if (child_id.empty()) {
        failed_to_start = true;
      } else {
        pending.push_back(std::move(child_id));
      }
    }
    for (const std::string& task_id : starts) {
      std::string child_id = StartChildRun(*run, task_id);
      if (child_id.empty()) {
        failed_to_start = true;
      } else {
        pending.push_back(std::move(child_id));
      }
    }
    if (failed_to_start) {
      driver->Advance(*run, now_ms);
      pending.push_back(run_id);
    }
  }
}

std::string NestedRuns::StartChildRun(RunState& parent, const std::string& task_id) {
  const int64_t now_ms = batch_->now_ms();
  store::TaskRecord& task = parent.MutableTask(task_id);
  batch_->Touch(parent.run_id());
  if (absl::Status room = CheckChildRunRoom(parent.record().run(), runs_->options().limits);
      !room.ok()) {
    FailTask(task, absl::StrCat("cannot start its child run: ", room.message()), now_ms);
    return "";
  }
  SubmitRequest request;
  request.spec = task.child_spec();
  // Approvals anywhere in a run's tree go to the root's approvalWebhook
  // (the one intake checked against --approval-webhook-allow), whatever
  // the child's own flow says.
  if (const ActiveRun* active = runs_->active().Find(parent.run_id()); active != nullptr) {
    request.spec.set_approval_webhook(active->spec->approval_webhook());
  }
  absl::StatusOr<Json> args =
      ChildRunArgs(task, flow::ProtoStructToJson(parent.record().run().args()));
  if (!args.ok()) {
    FailTask(task, absl::StrCat("cannot start its child run: ", args.status().message()), now_ms);
    return "";
  }
  request.args = *std::move(args);
  request.session_id = parent.record().run().session_id();
  request.tenant = parent.record().tenant();
  for (const auto& [key, value] : parent.record().run().labels()) request.labels[key] = value;
  // The child run's span nests under the span of the task it carries out.
  if (IsTraced(parent.record().trace())) {
    request.trace_parent =
        AttemptSpanContext(parent.record().trace(), task_id, std::max(1, task.task().attempt()));
  }
  absl::StatusOr<std::string> child =
      runs_->CreateRun(request, &parent.record().run(), task_id, RunManager::DriverStart::kNow);
  if (!child.ok()) {
    FailTask(task, absl::StrCat("cannot start its child run: ", child.status().message()), now_ms);
    return "";
  }
  task.mutable_task()->set_child_run_id(*child);
  parent.MutableRecord().mutable_run()->add_child_run_ids(*child);
  return *std::move(child);
}

std::string NestedRuns::ResumeChildRun(RunState& parent, const std::string& task_id) {
  const std::string child_id = parent.FindTask(task_id)->task().child_run_id();
  batch_->Touch(parent.run_id());
  absl::StatusOr<std::unique_ptr<RunState>> child = runs_->LoadRun(child_id);
  absl::Status resumable = child.ok() ? CheckResumable((*child)->record()) : child.status();
  if (resumable.ok()) {
    absl::StatusOr<ResumeResult> resumed = runs_->ResumeLoaded(*std::move(child));
    if (resumed.ok()) return child_id;
    resumable = resumed.status();
  }
  // Completed (its output said the step failed) or unreadable: a new child
  // carries the task out.
  log::Info("starting a new child run instead of resuming one")
      .With("run_id", parent.run_id())
      .With("task_id", task_id)
      .With("child_run_id", child_id)
      .With("reason", resumable.message());
  parent.MutableTask(task_id).mutable_task()->clear_child_run_id();
  return StartChildRun(parent, task_id);
}

bool NestedRuns::SettleParentTask(const RunState& child) {
  const v1::Run& view = child.record().run();
  ActiveRun* parent = runs_->active().Find(view.parent_run_id());
  if (parent == nullptr) return false;
  RunState& run = *parent->state;
  const store::TaskRecord* task = run.FindTask(child.record().parent_task_id());
  if (task == nullptr || !AwaitsChildRun(*task) || task->task().child_run_id() != view.run_id()) {
    return false;
  }
  SettleChildTask(run.MutableTask(task->task().task_id()), view, batch_->now_ms());
  AddUsage(*run.MutableRecord().mutable_run()->mutable_usage(), view.usage());
  batch_->Touch(run.run_id());
  parent->driver->Advance(run, batch_->now_ms());
  return true;
}

absl::Status NestedRuns::RecoverLinks() {
  ActiveRuns& active = runs_->active();
  for (auto& [run_id, entry] : active) {
    RunState& run = *entry.state;
    std::vector<std::string> waiting;
    const RunState::TaskList tasks = run.tasks();
    for (auto it = tasks.begin(); it != tasks.end(); ++it) {
      // A task a child run carries out is running (AwaitsChildRun): the
      // tasks kept serialized are not parsed to be looked at.
      if (it.state() == v1::TASK_STATE_RUNNING && AwaitsChildRun((*it).second)) {
        waiting.push_back(it.id());
      }
    }
    for (const std::string& task_id : waiting) {
      const std::string child_id = run.FindTask(task_id)->task().child_run_id();
      if (!child_id.empty() && active.contains(child_id)) continue;  // still running
      if (child_id.empty()) {
        run.MutableTask(task_id);  // Advance starts it
        continue;
      }
      absl::StatusOr<store::RunRecord> child = ReadRunRecord(*runs_->options().store, child_id);
      if (!child.ok()) {
        // The parent goes on without it: the step fails with the reason.
        store::RunRecord unreadable;
        unreadable.mutable_run()->set_run_id(child_id);
        unreadable.mutable_run()->set_status(v1::RUN_STATUS_FAILED);
        unreadable.mutable_run()->set_error(
            absl::StrCat("unrecoverable: ", child.status().message()));
        child = std::move(unreadable);
      }
      SettleChildTask(run.MutableTask(task_id), child->run(), batch_->now_ms());
      AddUsage(*run.MutableRecord().mutable_run()->mutable_usage(), child->run().usage());
    }
  }
  return absl::OkStatus();
}

}  // namespace taskboard::engine
