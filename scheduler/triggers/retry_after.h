#ifndef TASKBOARD_SCHEDULER_TRIGGERS_RETRY_AFTER_H_
#define TASKBOARD_SCHEDULER_TRIGGERS_RETRY_AFTER_H_

// A refusal for a rate limit (docs/schedules.md#rate-limits) carries when to
// try again: a taskboard.v1.RetryAfter under this URL as the status's
// payload, sent by gRPC as a status detail and by the HTTP API as the
// Retry-After header (scheduler/server/grpc_status.h).

namespace taskboard::triggers {

inline constexpr char kRetryAfterPayloadUrl[] = "type.googleapis.com/taskboard.v1.RetryAfter";

}  // namespace taskboard::triggers

#endif  // TASKBOARD_SCHEDULER_TRIGGERS_RETRY_AFTER_H_
