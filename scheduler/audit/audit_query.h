#ifndef TASKBOARD_SCHEDULER_AUDIT_AUDIT_QUERY_H_
#define TASKBOARD_SCHEDULER_AUDIT_AUDIT_QUERY_H_

// Which audit records a ListAuditEvents call reads (docs/audit.md#reading):
// whose, matching what, in which time range, and where the page starts. No
// gRPC and no store here: the reader (audit_reader.h) scans with it.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "taskboard/v1/audit.pb.h"

namespace taskboard::audit {

inline constexpr int kDefaultPageSize = 100;
inline constexpr int kMaxPageSize = 1000;

struct AuditQuery {
  // The one tenant read; nullopt: every tenant (admins).
  std::optional<std::string> tenant;
  std::string actor;
  std::string method;
  std::string target;
  // [since, until) in microseconds since the epoch; until 0: no bound.
  uint64_t since_micros = 0;
  uint64_t until_micros = 0;
  int page_size = kDefaultPageSize;
  // The store key the page continues below (exclusive); "" for the first.
  std::string resume_key;
};

// The query of `request` for a caller that may read `tenant` (nullopt:
// every tenant). INVALID_ARGUMENT for a negative or too large page size, a
// page token that is not one of ours (or was made for another tenant), or
// until before since.
absl::StatusOr<AuditQuery> QueryOf(const v1::ListAuditEventsRequest& request,
                                   std::optional<std::string> tenant);

// Whether `event` passes the query's actor, method and target filters.
// `method` matches the whole name ("Scheduler.SubmitRun") or its part after
// the service ("SubmitRun").
bool Matches(const AuditQuery& query, const v1::AuditEvent& event);

// A page token for the store key `key`, and back.
std::string PageToken(absl::string_view key);
std::optional<std::string> KeyOfPageToken(absl::string_view token);

}  // namespace taskboard::audit

#endif  // TASKBOARD_SCHEDULER_AUDIT_AUDIT_QUERY_H_
