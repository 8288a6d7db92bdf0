#include "scheduler/engine/board_flow.h"

namespace taskboard::engine {

v1::Phase BoardTaskAsPhase(const v1::BoardTask& task) {
  v1::Phase phase;
  phase.set_id(task.id());
  phase.set_type(v1::PHASE_TYPE_AGENT);
  phase.set_agent(task.agent());
  phase.set_task(task.task());
  *phase.mutable_depends_on() = task.deps();
  phase.set_is_optional(task.is_optional());
  if (task.has_retries()) phase.set_retries(task.retries());
  phase.set_timeout_seconds(task.timeout_seconds());
  return phase;
}

v1::TaskflowSpec BoardAsTaskflow(const v1::BoardSpec& board) {
  v1::TaskflowSpec flow;
  flow.set_concurrency(board.concurrency());
  for (const v1::BoardTask& task : board.tasks()) *flow.add_phases() = BoardTaskAsPhase(task);
  return flow;
}

}  // namespace taskboard::engine
