#ifndef TASKBOARD_SCHEDULER_AUDIT_AUDIT_READER_H_
#define TASKBOARD_SCHEDULER_AUDIT_AUDIT_READER_H_

// Reads a page of the audit trail, newest first (docs/audit.md#reading): one
// tenant's records from its own prefix, every tenant's through the time
// index. A page stops after page_size matches or after scanning
// kMaxScannedPerPage records, so a filter that matches little costs a
// bounded read per call; the page token says where the next one starts.

#include "absl/status/statusor.h"
#include "scheduler/audit/audit_query.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/audit.pb.h"

namespace taskboard::audit {

inline constexpr int kMaxScannedPerPage = 10000;

// INTERNAL for a record that does not parse; the store's errors as is.
absl::StatusOr<v1::ListAuditEventsResponse> ReadAuditPage(store::Store& store,
                                                          const AuditQuery& query);

}  // namespace taskboard::audit

#endif  // TASKBOARD_SCHEDULER_AUDIT_AUDIT_READER_H_
