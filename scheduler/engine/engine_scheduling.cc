// Engine: ready tasks whose agent no connected worker offers fail after the
// scheduling timeout (scheduling_deadlines.h), checked per agent.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/engine/engine.h"
#include "scheduler/engine/task_lifecycle.h"

namespace taskboard::engine {

void Engine::ArmSchedulingCheck(const std::string& agent, int64_t ready_ms) {
  const int64_t due = scheduling_.DeadlineOf(agent, ready_ms);
  if (scheduling_.Arm(agent, due)) timers_.Add({due, TimerKind::kScheduling, "", "", agent});
}

void Engine::CheckSchedulingDeadlines(const std::string& agent, int64_t due_ms) {
  if (!scheduling_.Fired(agent, due_ms)) return;  // superseded by a check that ran
  // A worker offers the agent now: its tasks wait for slots, however long
  // (decision 28). If that worker leaves, DoDisconnect arms a check again.
  if (workers_.registry().AnyOffers(agent)) return;
  if (std::optional<int64_t> expired = scheduling_.ExpiredUpTo(agent, batch_.now_ms())) {
    std::vector<dispatch::ReadyEntry> entries = ready_.TakeReadyUpTo(agent, *expired);
    std::string error;
    for (dispatch::ReadyEntry& entry : entries) {
      if (entry.run->ended) continue;  // a stale entry; its task id is gone
      ActiveRun* active = runs_.active().Find(entry.run->run_id);
      if (active == nullptr) continue;
      RunState& state = *active->state;
      const store::TaskRecord* task = state.FindTask(entry.task_id);
      if (task == nullptr || task->task().state() != v1::TASK_STATE_READY ||
          task->task().agent() != agent) {
        continue;  // stale: dispatched, ended or re-queued since
      }
      if (scheduling_.DeadlineOf(agent, task->ready_unix_ms()) > batch_.now_ms()) {
        // Ready again since this entry was queued: its newer entry waits.
        entry.ready_ms = task->ready_unix_ms();
        ready_.Push(agent, std::move(entry));
        continue;
      }
      if (error.empty()) {
        std::vector<std::string> offered = workers_.registry().OfferedAgents();
        error = absl::StrCat(
            "no worker offers agent '", agent, "' (available: ",
            offered.empty() ? "none, no worker is connected" : absl::StrJoin(offered, ", "),
            "); start a worker with that agent or fix the flow's agent name");
      }
      FailTask(state.MutableTask(entry.task_id), error, batch_.now_ms());
      batch_.Touch(state.run_id());
    }
  }
  if (std::optional<int64_t> oldest = ready_.OldestReadyMs(agent)) {
    ArmSchedulingCheck(agent, *oldest);
  }
}

}  // namespace taskboard::engine
