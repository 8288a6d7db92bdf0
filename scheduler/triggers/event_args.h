#ifndef TASKBOARD_SCHEDULER_TRIGGERS_EVENT_ARGS_H_
#define TASKBOARD_SCHEDULER_TRIGGERS_EVENT_ARGS_H_

// The args of a run a trigger starts, taken from its event
// (docs/schedules.md#json-paths): each arg is either a JSON path
// into the payload (`pr: $.pull_request.number`) or a value given as is
// (`mode: review`). A path that names nothing refuses the delivery, saying
// which arg and path: a run with a missing arg would fail later, further
// from the cause.

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"
#include "scheduler/triggers/json_path.h"

namespace taskboard::triggers {

struct ArgSource {
  std::string name;
  std::variant<JsonPath, Json> from;  // a payload path or a constant
};

// The args object, in the sources' order. INVALID_ARGUMENT
// `arg 'pr': $.pull_request.number is not in the payload`.
absl::StatusOr<Json> MapEventArgs(const std::vector<ArgSource>& sources, const Json& payload);

}  // namespace taskboard::triggers

#endif  // TASKBOARD_SCHEDULER_TRIGGERS_EVENT_ARGS_H_
