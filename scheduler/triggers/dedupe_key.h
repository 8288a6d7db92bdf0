#ifndef TASKBOARD_SCHEDULER_TRIGGERS_DEDUPE_KEY_H_
#define TASKBOARD_SCHEDULER_TRIGGERS_DEDUPE_KEY_H_

// The run idempotency key of a delivery (docs/schedules.md#redelivery):
// `trigger:<name>:<dedupe value>`, so a redelivered event finds the run the
// first delivery started, through the same key table SubmitRun and
// schedules use, and starts nothing new.

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "scheduler/triggers/event.h"
#include "scheduler/triggers/trigger_definition.h"

namespace taskboard::triggers {

// Dedupe values longer than this are replaced by their SHA-256 (hex), so a
// key stays short whatever a payload holds.
inline constexpr size_t kMaxDedupeValueBytes = 128;

// nullopt when the trigger does not dedupe. INVALID_ARGUMENT when it does
// and the event lacks the header or field (or the field is an object or
// array): a delivery that cannot be told apart from a redelivery is refused,
// not run twice.
absl::StatusOr<std::optional<std::string>> DedupeKey(const std::string& trigger,
                                                     const DedupeSource& source,
                                                     const Event& event);

}  // namespace taskboard::triggers

#endif  // TASKBOARD_SCHEDULER_TRIGGERS_DEDUPE_KEY_H_
