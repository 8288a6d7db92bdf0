#ifndef TASKBOARD_WORKER_SESSION_JSON_LOG_H_
#define TASKBOARD_WORKER_SESSION_JSON_LOG_H_

// Structured logs of the worker: one JSON object per line on stderr,
//   {"level":"info","msg":"connected to scheduler","worker_id":"w1",...}
// Lines from different threads never interleave.
//
// TODO(lead): DESIGN.md puts logging in common/; move this there when the
// scheduler needs the same.

#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard::worker {

// `fields` (an object, may be null) follow level and msg in its own order.
void LogJson(absl::string_view level, absl::string_view msg, const Json& fields = nullptr);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_SESSION_JSON_LOG_H_
