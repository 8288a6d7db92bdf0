#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_LISTENER_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_LISTENER_H_

// What the tool calls (tool_calls/tool_calls.h) keep per run and request
// follows the runs through this: a run leaving memory, a root run deleted.

#include <string>

#include "scheduler/engine/runs/run_deletion.h"

namespace taskboard::engine {

class RunListener {
 public:
  virtual ~RunListener() = default;
  // `run_id` finished and left memory with this batch's commit.
  virtual void OnRunLeftMemory(const std::string& run_id) = 0;
  // --retention deleted `deletion`'s runs from the store (this batch writes
  // the last deletes): what memory holds of them goes too.
  virtual void OnRootRunDeleted(const RunDeletion& deletion) = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_LISTENER_H_
