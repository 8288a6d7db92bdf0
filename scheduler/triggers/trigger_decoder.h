#ifndef TASKBOARD_SCHEDULER_TRIGGERS_TRIGGER_DECODER_H_
#define TASKBOARD_SCHEDULER_TRIGGERS_TRIGGER_DECODER_H_

// A trigger file (YAML or JSON; docs/schedules.md#a-trigger-file) into a
// TriggerDefinition, the way schedule files are read
// (scheduler/schedules/schedule_decoder.h): every problem collected with its
// path, unknown fields refused with a did-you-mean. The only reader of a
// trigger's definition: at create, update and every load.

#include <cstddef>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"
#include "scheduler/triggers/trigger_definition.h"

namespace taskboard::triggers {

inline constexpr size_t kMaxTriggerTextBytes = 64 * 1024;
inline constexpr int kMaxFilterConditions = 16;
inline constexpr int kMaxTriggerArgs = 64;
inline constexpr size_t kMinHmacSecretBytes = 16;
inline constexpr double kMaxPerMinute = 60'000;
inline constexpr int64_t kMaxBurst = 10'000;

// INVALID_ARGUMENT: text empty, too large, not UTF-8, not JSON/YAML, or a
// trigger with problems (all of them, `path: message` per line, with the
// flow errors payload; flow_errors.h).
absl::StatusOr<TriggerDefinition> LoadTriggerText(absl::string_view text);

// Same, from a parsed document.
absl::StatusOr<TriggerDefinition> DecodeTrigger(const Json& doc);

}  // namespace taskboard::triggers

#endif  // TASKBOARD_SCHEDULER_TRIGGERS_TRIGGER_DECODER_H_
