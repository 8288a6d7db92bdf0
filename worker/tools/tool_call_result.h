#ifndef TASKBOARD_WORKER_TOOLS_TOOL_CALL_RESULT_H_
#define TASKBOARD_WORKER_TOOLS_TOOL_CALL_RESULT_H_

// What a successful tool call gives back to the agent that made it, fresh or
// served by the scheduler's shared cache (docs/semantics.md#lookup-outcomes).

#include <cstdint>
#include <string>

#include "taskboard/v1/common.pb.h"

namespace taskboard::worker {

struct ToolCallResult {
  // The tool's result, JSON text.
  std::string result_json;
  // Served from the cache, or from an identical call in flight elsewhere.
  bool cached = false;
  // Cached results only: how old the entry is and which call produced it.
  int64_t cache_age_ms = 0;
  v1::TaskRef source_task;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_TOOL_CALL_RESULT_H_
