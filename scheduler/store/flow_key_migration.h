#ifndef TASKBOARD_SCHEDULER_STORE_FLOW_KEY_MIGRATION_H_
#define TASKBOARD_SCHEDULER_STORE_FLOW_KEY_MIGRATION_H_

// The flows column's keys start with their tenant (keys.h), so that one
// tenant's listing and quota read only its own flows. Stores written before
// kept `Str("tenant/name") U64(version)`, every tenant's flows interleaved;
// this rewrites those keys once, one way, when saved flows are opened.
//
// Each batch puts the new keys and deletes the old ones together, so a crash
// part-way leaves every flow under exactly one key; the next start goes on
// (a key of the new layout never parses as an old one) and writes the
// marker (keys::FlowKeysByTenant) at the end, after which a start reads one
// meta key and nothing else.

#include <cstdint>

#include "absl/status/statusor.h"
#include "scheduler/store/store.h"

namespace taskboard::store {

// How many flow versions were moved (0 when the marker was there). Errors
// are the store's; nothing is assumed moved past the last batch written.
absl::StatusOr<int64_t> MigrateFlowKeys(Store& store);

}  // namespace taskboard::store

#endif  // TASKBOARD_SCHEDULER_STORE_FLOW_KEY_MIGRATION_H_
