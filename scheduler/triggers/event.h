#ifndef TASKBOARD_SCHEDULER_TRIGGERS_EVENT_H_
#define TASKBOARD_SCHEDULER_TRIGGERS_EVENT_H_

// One event as triggers see it (docs/schedules.md#event-triggers): its name
// (`POST /api/v1/events/<name>`, PublishEvent's `name`), the payload parsed
// once, and the request's headers by lower-case name, which filters and
// dedupe keys may read (`x-github-event`, `x-github-delivery`).

#include <map>
#include <string>

#include "common/json.h"

namespace taskboard::triggers {

struct Event {
  std::string name;
  Json payload = Json::object();
  std::map<std::string, std::string> headers;  // lower-case names

  // The header's value, "" when absent; `name` in any case.
  std::string Header(const std::string& name) const;
};

}  // namespace taskboard::triggers

#endif  // TASKBOARD_SCHEDULER_TRIGGERS_EVENT_H_
