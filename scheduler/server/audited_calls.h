#ifndef TASKBOARD_SCHEDULER_SERVER_AUDITED_CALLS_H_
#define TASKBOARD_SCHEDULER_SERVER_AUDITED_CALLS_H_

// Which calls change state and so are recorded in the audit trail
// (docs/audit.md#what-is-recorded), and how each names its target: from the
// request (a run id, a flow name, a worker) and, where only the reply knows
// it, from the response (the run SubmitRun created, the version SaveFlow
// stored). Refused calls of every method are recorded besides
// (audit_interceptor.h).

#include <string>

#include "absl/strings/string_view.h"

namespace taskboard::server {

// What a call acted on, filled in from its messages.
struct AuditFacts {
  std::string target;
  std::string detail;
};

struct AuditedCall {
  // "Scheduler.SubmitRun", as records name it.
  absl::string_view name;
  // `message` is the method's request / response type; either may be null.
  void (*from_request)(const void* message, AuditFacts& facts) = nullptr;
  void (*from_response)(const void* message, AuditFacts& facts) = nullptr;
};

// The entry of `method` (gRPC's full name, "/taskboard.v1.Scheduler/SubmitRun");
// null for a call that changes nothing.
const AuditedCall* FindAuditedCall(absl::string_view method);

// "Scheduler.GetRun" for "/taskboard.v1.Scheduler/GetRun".
std::string AuditMethodName(absl::string_view method);

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_AUDITED_CALLS_H_
