#ifndef TASKBOARD_SCHEDULER_TRIGGERS_TRIGGER_DEFINITION_H_
#define TASKBOARD_SCHEDULER_TRIGGERS_TRIGGER_DEFINITION_H_

// What a trigger file says (docs/schedules.md#a-trigger-file): which events
// start which saved flow with which args, how a delivery proves where it
// comes from, how a redelivery is known, and how fast deliveries may come.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/triggers/event_args.h"
#include "scheduler/triggers/event_filter.h"
#include "scheduler/triggers/json_path.h"

namespace taskboard::triggers {

// Where a delivery's dedupe key comes from: a header (GitHub's
// X-GitHub-Delivery) or a payload field. Neither: every delivery is new.
struct DedupeSource {
  std::string header;
  std::optional<JsonPath> path;
  bool enabled() const { return !header.empty() || path.has_value(); }
};

struct TriggerAuth {
  // HMAC-SHA256 secret of X-Hub-Signature-256; "" for none.
  std::string hmac_secret;
  // Whether a bearer token of the trigger's tenant may publish without a
  // signature. Defaults to true without a secret, false with one.
  bool bearer = true;
};

struct TriggerRate {
  double per_minute = 60;
  int64_t burst = 10;  // deliveries accepted at once from a full bucket
};

struct TriggerDefinition {
  std::string name;
  std::string event;  // the event name it listens to
  std::vector<FilterCondition> filter;
  std::string flow;                     // a saved flow's name
  std::optional<int64_t> flow_version;  // pinned; latest when unset
  std::vector<ArgSource> args;
  std::map<std::string, std::string> labels;
  TriggerAuth auth;
  DedupeSource dedupe;
  TriggerRate rate;
  bool paused = false;
};

}  // namespace taskboard::triggers

#endif  // TASKBOARD_SCHEDULER_TRIGGERS_TRIGGER_DEFINITION_H_
