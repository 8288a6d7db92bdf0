#ifndef TASKBOARD_SCHEDULER_SCHEDULES_SCHEDULE_DECODER_H_
#define TASKBOARD_SCHEDULER_SCHEDULES_SCHEDULE_DECODER_H_

// A schedule file (YAML or JSON; docs/schedules.md#a-schedule-file) into a
// ScheduleDefinition, the way flow files are read (scheduler/flow): text
// -> Json -> field by field with a JsonReader, every problem collected with
// its path (`spec.cron[1].timeZone: unknown time zone ...`), unknown fields
// refused with a did-you-mean.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"
#include "scheduler/schedules/schedule_spec.h"
#include "scheduler/schedules/schedule_state.h"

namespace taskboard::schedules {

inline constexpr size_t kMaxScheduleTextBytes = 64 * 1024;
inline constexpr int kMaxScheduleLabels = 32;
inline constexpr size_t kMaxLabelKeyBytes = 63;
inline constexpr size_t kMaxLabelValueBytes = 256;
// The catch-up window's bounds: below 10 s a tick delayed by a pause would
// miss its fire (Temporal's minimum too).
inline constexpr absl::Duration kMinCatchupWindow = absl::Seconds(10);
inline constexpr absl::Duration kMaxCatchupWindow = absl::Hours(24 * 366);

struct ScheduleDefinition {
  std::string name;
  std::string flow;                     // a saved flow's name
  std::optional<int64_t> flow_version;  // pinned; latest when unset
  Json args = Json::object();
  std::map<std::string, std::string> labels;
  // `runTimeoutSeconds`: each run's deadline (0: none; the flow's own may be
  // smaller; docs/semantics.md#run-deadlines).
  int32_t run_timeout_seconds = 0;
  ScheduleSpec spec;
  SchedulePolicies policies;
  bool paused = false;
  std::string note;
};

// INVALID_ARGUMENT: text empty, larger than kMaxScheduleTextBytes, not
// UTF-8, not JSON/YAML (line and column), or a schedule with problems (all
// of them, `path: message` per line, structured in the status payload as
// flow errors are; flow_errors.h).
absl::StatusOr<ScheduleDefinition> LoadScheduleText(absl::string_view text);

// Same, from a parsed document.
absl::StatusOr<ScheduleDefinition> DecodeSchedule(const Json& doc);

}  // namespace taskboard::schedules

#endif  // TASKBOARD_SCHEDULER_SCHEDULES_SCHEDULE_DECODER_H_
