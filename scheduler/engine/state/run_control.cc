#include "scheduler/engine/state/run_control.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "scheduler/engine/state/run_deadline.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/governance/usage_sum.h"

namespace taskboard::engine {

std::vector<std::string> CancelOpenTasks(RunState& run, absl::string_view message, int64_t now_ms) {
  std::vector<std::string> leases;
  std::vector<std::string> open;
  const RunState::TaskList tasks = run.tasks();
  for (auto it = tasks.begin(); it != tasks.end(); ++it) {
    if (!IsTerminal(it.state())) open.push_back(it.id());
  }
  for (const std::string& id : open) {
    store::TaskRecord& task = run.MutableTask(id);
    if (!task.lease_id().empty()) leases.push_back(task.lease_id());
    MarkCancelled(task, message, now_ms);
  }
  return leases;
}

namespace {

// Ends every open task and phase with `message` and the run with `status`.
std::vector<std::string> EndRunState(RunState& run, v1::RunStatus status,
                                     const std::string& message, int64_t now_ms) {
  std::vector<std::string> leases = CancelOpenTasks(run, message, now_ms);
  for (store::PhaseRecord& phase : run.MutablePhases()) {
    if (IsTerminal(phase.status().state())) continue;
    phase.clear_previous();
    phase.mutable_status()->set_state(v1::TASK_STATE_CANCELLED);
    *phase.mutable_status()->mutable_finished_at() = ToTimestamp(now_ms);
    v1::RunEvent event;
    *event.mutable_phase_change()->mutable_phase() = phase.status();
    run.Emit(std::move(event));
  }
  store::RunRecord& record = run.MutableRecord();
  v1::Run& view = *record.mutable_run();
  view.set_status(status);
  view.set_error(message);
  *view.mutable_finished_at() = ToTimestamp(now_ms);
  v1::RunEvent event;
  event.mutable_run_finished()->set_status(status);
  event.mutable_run_finished()->set_error(message);
  *event.mutable_run_finished()->mutable_usage() = view.usage();
  run.Emit(std::move(event));
  return leases;
}

}  // namespace

std::vector<std::string> CancelRunState(RunState& run, absl::string_view reason, int64_t now_ms) {
  return EndRunState(run, v1::RUN_STATUS_CANCELLED,
                     reason.empty() ? "cancelled" : absl::StrCat("cancelled: ", reason), now_ms);
}

std::vector<std::string> PauseRunState(RunState& run, absl::string_view reason, int64_t now_ms) {
  return EndRunState(run, v1::RUN_STATUS_PAUSED, absl::StrCat("paused: ", reason), now_ms);
}

std::vector<std::string> TimeOutRunState(RunState& run, int64_t now_ms) {
  const v1::Run& view = run.record().run();
  if (!view.has_deadline()) return {};
  return EndRunState(run, v1::RUN_STATUS_TIMED_OUT,
                     absl::StrCat("timed out: ", RunDeadlinePassed(view.deadline())), now_ms);
}

absl::Status CheckResumable(const store::RunRecord& record) {
  switch (record.run().status()) {
    case v1::RUN_STATUS_FAILED:
    case v1::RUN_STATUS_BLOCKED:
    case v1::RUN_STATUS_CANCELLED:
    case v1::RUN_STATUS_PAUSED:
    case v1::RUN_STATUS_TIMED_OUT:
      return absl::OkStatus();
    case v1::RUN_STATUS_COMPLETED:
      return absl::FailedPreconditionError(
          absl::StrCat("run ", record.run().run_id(),
                       " already completed: there is nothing to resume (submit the flow again "
                       "to run it anew)"));
    default:
      return absl::FailedPreconditionError(absl::StrCat(
          "run ", record.run().run_id(), " is ", RunStatusWord(record.run().status()),
          "; only failed, blocked, cancelled, paused or timed-out runs can be resumed"));
  }
}

absl::Status RaiseBudget(store::RunRecord& record, std::optional<double> usd,
                         std::optional<int64_t> tokens) {
  v1::Run& run = *record.mutable_run();
  const v1::Usage& billed = run.billed();
  if (usd.has_value()) {
    if (!(*usd > billed.cost_usd())) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "run %s has billed $%.4f already: a budget of $%.4f would pause it again at once; give "
          "more than $%.4f",
          run.run_id(), billed.cost_usd(), *usd, billed.cost_usd()));
    }
    run.mutable_budget()->set_usd(*usd);
  }
  if (tokens.has_value()) {
    const int64_t used = governance::BudgetTokens(billed);
    if (*tokens <= used) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "run %s has billed %d tokens already: a budget of %d tokens would pause it again at "
          "once; give more than %d",
          run.run_id(), used, *tokens, used));
    }
    run.mutable_budget()->set_tokens(*tokens);
  }
  return absl::OkStatus();
}

void PrepareResume(RunState& run) {
  store::RunRecord& record = run.MutableRecord();
  record.set_generation(record.generation() + 1);
  record.clear_blocked_by();
  record.clear_blocked_reason();
  v1::Run& view = *record.mutable_run();
  view.set_status(v1::RUN_STATUS_RUNNING);
  view.clear_output();
  view.clear_error();
  view.clear_finished_at();
  for (store::PhaseRecord& phase : run.MutablePhases()) {
    store::PhaseRecord previous = phase;
    previous.clear_previous();
    store::PhaseRecord fresh;
    v1::PhaseStatus& status = *fresh.mutable_status();
    status.set_phase_id(previous.status().phase_id());
    status.set_type(previous.status().type());
    status.set_layer(previous.status().layer());
    status.set_state(v1::TASK_STATE_PENDING);
    *fresh.mutable_previous() = std::move(previous);
    phase = std::move(fresh);
  }
  // Tasks of phases that run again are replaced when their phase starts.
}

}  // namespace taskboard::engine
