#ifndef TASKBOARD_SCHEDULER_AUDIT_AUDIT_SWEEP_H_
#define TASKBOARD_SCHEDULER_AUDIT_AUDIT_SWEEP_H_

// Retention of the audit trail (--audit-retention, docs/audit.md#retention):
// the deletes that remove records older than a cutoff, oldest first, read
// from the time index so a sweep touches only what it deletes.

#include <cstdint>

#include "absl/status/statusor.h"
#include "scheduler/store/store.h"

namespace taskboard::audit {

// Deletes (record and index key) of at most `max_records` records written
// before `cutoff_micros`; an empty batch when there are none. The store's
// errors as is.
absl::StatusOr<store::WriteBatch> ExpiredAuditRecords(store::Store& store, uint64_t cutoff_micros,
                                                      int max_records);

}  // namespace taskboard::audit

#endif  // TASKBOARD_SCHEDULER_AUDIT_AUDIT_SWEEP_H_
