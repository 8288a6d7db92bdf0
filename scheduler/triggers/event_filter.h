#ifndef TASKBOARD_SCHEDULER_TRIGGERS_EVENT_FILTER_H_
#define TASKBOARD_SCHEDULER_TRIGGERS_EVENT_FILTER_H_

// Which events of a name a trigger starts runs for
// (docs/schedules.md#what-a-delivery-does): a list of conditions that must all hold,
// each "this payload field (JSON path) or header equals this value". The
// comparison is JSON equality (`5` is not `"5"`); a header is text. Equality
// only, all of them: it covers "pull requests that opened", "alerts that
// fire", and a trigger that needs more reads the payload in its flow.

#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "scheduler/triggers/event.h"
#include "scheduler/triggers/json_path.h"

namespace taskboard::triggers {

struct FilterCondition {
  std::optional<JsonPath> path;  // set: a payload field
  std::string header;            // otherwise: a header (as written)
  Json equals;
};

// nullopt when every condition holds; else why the first that fails does
// not, for the delivery's reason: `$.action is "closed", not "opened"`.
std::optional<std::string> FilterMismatch(const std::vector<FilterCondition>& filter,
                                          const Event& event);

}  // namespace taskboard::triggers

#endif  // TASKBOARD_SCHEDULER_TRIGGERS_EVENT_FILTER_H_
