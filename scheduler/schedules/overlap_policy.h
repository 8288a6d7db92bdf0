#ifndef TASKBOARD_SCHEDULER_SCHEDULES_OVERLAP_POLICY_H_
#define TASKBOARD_SCHEDULER_SCHEDULES_OVERLAP_POLICY_H_

// What a schedule does with a fire while a run it started is still running
// (Temporal's overlap policies; docs/schedules.md#overlap-policies):
//   skip          the fire is not run (the default)
//   buffer_one    the fire runs when the running runs end; at most one waits,
//                 later ones are skipped
//   buffer_all    every fire waits its turn, one run at a time, in order
//                 (at most kMaxBufferedFires wait)
//   cancel_other  the running runs are cancelled and the fire runs when they
//                 have ended; an older waiting fire is skipped
//   allow_all     the fire runs at once, alongside the others

#include <optional>

#include "absl/strings/string_view.h"

namespace taskboard::schedules {

enum class OverlapPolicy { kSkip, kBufferOne, kBufferAll, kCancelOther, kAllowAll };

// Temporal caps its buffer at 1000 as well: enough for a day of minutely
// fires behind one stuck run, small enough to keep in the schedule's record.
inline constexpr int kMaxBufferedFires = 1000;

// skip | buffer_one | buffer_all | cancel_other | allow_all.
absl::string_view OverlapPolicyName(OverlapPolicy policy);
std::optional<OverlapPolicy> OverlapPolicyFromName(absl::string_view name);

}  // namespace taskboard::schedules

#endif  // TASKBOARD_SCHEDULER_SCHEDULES_OVERLAP_POLICY_H_
