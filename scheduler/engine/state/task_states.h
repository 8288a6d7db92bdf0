#ifndef TASKBOARD_SCHEDULER_ENGINE_STATE_TASK_STATES_H_
#define TASKBOARD_SCHEDULER_ENGINE_STATE_TASK_STATES_H_

// Small predicates over task and run states shared by drivers, the engine and
// the read side, plus the timestamp and usage arithmetic every record uses.

#include <cstdint>
#include <string>

#include "google/protobuf/timestamp.pb.h"
#include "scheduler/governance/usage_sum.h"
#include "taskboard/v1/common.pb.h"

namespace taskboard::engine {

// completed, failed, cancelled or skipped: nothing more will happen to it.
bool IsTerminal(v1::TaskState state);
// ready, dispatched, running or retrying: counts against concurrency limits.
bool IsInFlight(v1::TaskState state);
// completed, failed, blocked, cancelled, paused or timed_out: the run has ended.
bool IsTerminal(v1::RunStatus status);
// The status as users read it in messages: `completed`, `failed`, ...
std::string RunStatusWord(v1::RunStatus status);
// The same for a task's state: `running`, `completed`, ...
std::string TaskStateWord(v1::TaskState state);

google::protobuf::Timestamp ToTimestamp(int64_t unix_ms);
// The inverse: Unix milliseconds (0 for an unset timestamp).
int64_t ToUnixMs(const google::protobuf::Timestamp& ts);

// Phase and run totals sum usage like governance's billing does.
using governance::AddUsage;

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_STATE_TASK_STATES_H_
