#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_EVENT_SIZE_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_EVENT_SIZE_H_

// Keeps run events within --max-event-bytes. An event is the live view of a
// run (task outputs, output deltas, errors, observations); the records it
// describes keep their full text (GetTask, GetRun, the ledger), so an
// oversized event is cut rather than refused: its longest texts are
// shortened, each ending with a marker that says so, and watchers still see
// every state change.

#include <cstdint>

#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine {

// Cuts the longest string fields of `event` (at UTF-8 character boundaries)
// until its encoding is at most `max_bytes`, appending to each cut text
// "…[cut: N of M bytes shown; scheduler flag --max-event-bytes]". Returns
// whether anything was cut. An event whose fixed parts alone exceed
// `max_bytes` keeps only markers; `max_bytes` should leave room for them
// (the flag's minimum is 1024).
bool FitEventToLimit(v1::RunEvent& event, int64_t max_bytes);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_EVENT_SIZE_H_
