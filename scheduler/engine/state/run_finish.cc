#include "scheduler/engine/state/run_finish.h"

#include <utility>

#include "scheduler/engine/state/task_states.h"

namespace taskboard::engine {

void FinishRun(RunState& run, v1::RunStatus status, std::string output, std::string error,
               int64_t now_ms) {
  v1::Run& view = *run.MutableRecord().mutable_run();
  view.set_status(status);
  view.set_output(std::move(output));
  view.set_error(std::move(error));
  *view.mutable_finished_at() = ToTimestamp(now_ms);
  v1::RunEvent event;
  v1::RunFinished& finished = *event.mutable_run_finished();
  finished.set_status(view.status());
  finished.set_output(view.output());
  finished.set_error(view.error());
  *finished.mutable_usage() = view.usage();
  run.Emit(std::move(event));
}

}  // namespace taskboard::engine
