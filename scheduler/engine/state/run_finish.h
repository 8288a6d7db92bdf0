#ifndef TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_FINISH_H_
#define TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_FINISH_H_

// Ending a run, the same for every driver: its public view gets the final
// status, output, error and finish time, and a `run_finished` event (with
// the run's usage) is emitted last in the batch.

#include <cstdint>
#include <string>

#include "scheduler/engine/state/run_state.h"
#include "taskboard/v1/common.pb.h"

namespace taskboard::engine {

void FinishRun(RunState& run, v1::RunStatus status, std::string output, std::string error,
               int64_t now_ms);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_FINISH_H_
