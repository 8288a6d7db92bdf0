#ifndef TASKBOARD_SCHEDULER_SCHEDULES_ZONED_CRON_H_
#define TASKBOARD_SCHEDULER_SCHEDULES_ZONED_CRON_H_

// When a cron expression fires in an IANA time zone: the civil times it
// matches, mapped to instants with the daylight-saving rules Temporal
// documents (docs/schedules.md#daylight-saving-time):
//   - a civil time skipped by a forward jump fires once, shifted forward by
//     the jump (02:30 on a US spring-forward day fires at 03:30 EDT);
//   - a civil time repeated by a backward jump fires once, at its first
//     occurrence (01:30 EDT, not 01:30 EST).
//
// The work is done per stretch of constant UTC offset between the zone's
// transitions, so it costs a few zoneinfo lookups per fire however dense
// the expression, and the instants come out strictly increasing.

#include <optional>

#include "absl/time/time.h"
#include "scheduler/schedules/cron_expression.h"

namespace taskboard::schedules {

// The first instant strictly after `after` at which `cron` fires in `zone`;
// nullopt when there is none within the search bound (400 years).
std::optional<absl::Time> NextCronTime(const CronExpression& cron, const absl::TimeZone& zone,
                                       absl::Time after);

}  // namespace taskboard::schedules

#endif  // TASKBOARD_SCHEDULER_SCHEDULES_ZONED_CRON_H_
