#include "scheduler/engine/workers/dispatcher.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/log/log.h"
#include "common/otel/traceparent.h"
#include "scheduler/engine/core/ids.h"
#include "scheduler/engine/state/run_trace.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/workers/assignment_to_send.h"

namespace taskboard::engine {

void Dispatcher::Start(const Clock* clock, int64_t scheduling_timeout_ms) {
  clock_ = clock;
  scheduling_ = SchedulingDeadlines(scheduling_timeout_ms, clock->NowMs());
}

void Dispatcher::Queue(RunState& run, absl::string_view kept_id, const store::TaskRecord& task) {
  if (task.task().state() != v1::TASK_STATE_READY) return;
  ready_.Push(task.task().agent(), {task.priority(), task.ready_unix_ms(), task.order(),
                                    clock_->NowUs(), run.ready_run(), kept_id});
  if (!streams_->registry().AnyOffers(task.task().agent())) {
    ArmSchedulingCheck(task.task().agent(), task.ready_unix_ms());
  }
}

void Dispatcher::Dispatch() {
  prior_work_->DispatchSummaries();
  for (const std::string& agent : ready_.AgentsWithWork()) {
    while (!ready_.Empty(agent)) {
      dispatch::ConnectedWorker* worker = streams_->registry().Pick(agent);
      if (worker == nullptr) break;
      dispatch::ReadyEntry entry = ready_.Pop(agent);
      if (entry.run->ended) continue;  // its task id is gone with it
      ActiveRun* active = runs_->Find(entry.run->run_id);
      if (active == nullptr) continue;
      RunState& run = *active->state;
      const std::string task_id(entry.task_id);
      const store::TaskRecord* ready = run.FindTask(task_id);
      if (ready == nullptr || ready->task().state() != v1::TASK_STATE_READY) continue;
      // Prior work is selected before the task is marked dispatched: a
      // ledger the store cannot read fails the task instead of sending it.
      // An external policy selects after the dispatch is committed.
      const bool traced =
          prior_work_tracer_ != nullptr && prior_work_tracer_->Records(run.record().trace());
      const int64_t choosing_us = traced ? clock_->NowUs() : 0;
      PriorWorkSource::Choice choice = prior_work_->ChooseFor(*active, task_id);
      const int64_t chosen_us = traced ? clock_->NowUs() : 0;
      if (choice.kind == PriorWorkSource::Choice::Kind::kParked) continue;
      if (choice.kind == PriorWorkSource::Choice::Kind::kFailed) {
        FailTask(run.MutableTask(task_id),
                 absl::StrCat("prior work of task '", task_id,
                              "' could not be read from the ledger: ", choice.status.message(),
                              "; the scheduler's store failed a read (see its log): resume the "
                              "run once it reads again"),
                 batch_->now_ms());
        batch_->Touch(run.run_id());
        continue;
      }

      std::string lease_id = NewLeaseId(batch_->rng());
      store::TaskRecord& task = run.MutableTask(task_id);
      MarkDispatched(task, lease_id, worker->worker_id, batch_->now_ms());
      task.set_worker_incarnation(worker->hello.incarnation());
      log::Debug("task dispatched")
          .With("run_id", run.run_id())
          .With("task_id", task_id)
          .With("worker_id", worker->worker_id)
          .With("agent", agent)
          .With("attempt", task.task().attempt())
          .With("lease_id", lease_id);
      leases_->Grant({lease_id, run.run_id(), task_id, worker->worker_id, worker->identity,
                      worker->stream_id, batch_->now_ms() + options_.lease_timeout_ms});
      if (task.assignment().timeout_seconds() > 0) {
        timers_->Add({batch_->now_ms() + task.assignment().timeout_seconds() * 1000LL,
                      TimerKind::kTaskTimeout, run.run_id(), task_id, lease_id});
      }
      worker->credits--;
      dispatched_++;
      if (options_.metrics != nullptr) {
        options_.metrics->TaskDispatched(
            agent, absl::Microseconds(std::max<int64_t>(0, clock_->NowUs() - entry.queued_us)));
      }
      batch_->Touch(run.run_id());

      v1::ConnectResponse message;
      v1::Assignment& assignment = *message.mutable_assignment();
      assignment = AssignmentToSend(task, run.record());
      assignment.set_lease_id(lease_id);
      assignment.set_attempt(task.task().attempt());
      // The worker's task.attempt span nests under this attempt's span,
      // which the trace component emits when the attempt ends.
      if (const store::RunTrace& trace = run.record().trace(); IsTraced(trace)) {
        assignment.set_traceparent(
            otel::FormatTraceparent(AttemptSpanContext(trace, task_id, task.task().attempt())));
        // The tenant's off switch wins over the worker's flag
        // (docs/observability.md#prompt-and-completion-content).
        assignment.set_trace_content_allowed(
            trace_content_ == nullptr ||
            trace_content_->TraceContentAllowed(run.record().tenant()));
      }
      assignment.mutable_ready_at()->set_seconds(entry.queued_us / 1'000'000);
      assignment.mutable_ready_at()->set_nanos(static_cast<int32_t>(entry.queued_us % 1'000'000) *
                                               1000);
      if (choice.kind == PriorWorkSource::Choice::Kind::kAfterCommit) {
        prior_work_->SendAfterCommit(*active, std::move(message));
        continue;
      }
      if (traced) {
        prior_work_tracer_->PriorWorkChosen(run.record().trace(), task_id, task.task().attempt(),
                                            choice.prior_work.meta(), choosing_us, chosen_us);
      }
      *assignment.mutable_prior_work() = std::move(choice.prior_work);
      streams_->SendTo(worker->stream_id, std::move(message));
    }
  }
  // Summaries asked for by tasks parked just now.
  prior_work_->DispatchSummaries();
}

void Dispatcher::AgentLost(const std::string& agent) {
  scheduling_.AgentLost(agent, batch_->now_ms());
  if (std::optional<int64_t> oldest = ready_.OldestReadyMs(agent)) {
    ArmSchedulingCheck(agent, *oldest);
  }
}

void Dispatcher::ArmSchedulingCheck(const std::string& agent, int64_t ready_ms) {
  const int64_t due = scheduling_.DeadlineOf(agent, ready_ms);
  if (scheduling_.Arm(agent, due)) timers_->Add({due, TimerKind::kScheduling, "", "", agent});
}

void Dispatcher::CheckSchedulingDeadlines(const std::string& agent, int64_t due_ms) {
  if (!scheduling_.Fired(agent, due_ms)) return;  // superseded by a check that ran
  // A worker offers the agent now: its tasks wait for slots, however long
  // (decision 28). If that worker leaves, AgentLost arms a check again.
  if (streams_->registry().AnyOffers(agent)) return;
  if (std::optional<int64_t> expired = scheduling_.ExpiredUpTo(agent, batch_->now_ms())) {
    std::vector<dispatch::ReadyEntry> entries = ready_.TakeReadyUpTo(agent, *expired);
    std::string error;
    for (dispatch::ReadyEntry& entry : entries) {
      if (entry.run->ended) continue;  // a stale entry; its task id is gone
      ActiveRun* active = runs_->Find(entry.run->run_id);
      if (active == nullptr) continue;
      RunState& state = *active->state;
      const store::TaskRecord* task = state.FindTask(entry.task_id);
      if (task == nullptr || task->task().state() != v1::TASK_STATE_READY ||
          task->task().agent() != agent) {
        continue;  // stale: dispatched, ended or re-queued since
      }
      if (scheduling_.DeadlineOf(agent, task->ready_unix_ms()) > batch_->now_ms()) {
        // Ready again since this entry was queued: its newer entry waits.
        entry.ready_ms = task->ready_unix_ms();
        ready_.Push(agent, std::move(entry));
        continue;
      }
      if (error.empty()) {
        std::vector<std::string> offered = streams_->registry().OfferedAgents();
        error = absl::StrCat(
            "no worker offers agent '", agent, "' (available: ",
            offered.empty() ? "none, no worker is connected" : absl::StrJoin(offered, ", "),
            "); start a worker with that agent or fix the flow's agent name");
      }
      FailTask(state.MutableTask(entry.task_id), error, batch_->now_ms());
      batch_->Touch(state.run_id());
    }
  }
  if (std::optional<int64_t> oldest = ready_.OldestReadyMs(agent)) {
    ArmSchedulingCheck(agent, *oldest);
  }
}

}  // namespace taskboard::engine
