#ifndef TASKBOARD_SCHEDULER_SERVER_RUN_ACCESS_H_
#define TASKBOARD_SCHEDULER_SERVER_RUN_ACCESS_H_

// Tenant isolation of runs (docs/security.md#tenants): a caller sees only
// the runs of its tenant (auth::Caller::visible_tenant); a run of another
// tenant answers exactly like a run that does not exist, so callers learn
// nothing about other tenants.

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/auth/principal.h"
#include "scheduler/store/store.h"

namespace taskboard::server {

// OK when `tenant` is nullopt (every tenant visible) or owns the run;
// NOT_FOUND (engine::RunNotFoundError) for an unknown run or one of another
// tenant; DATA_LOSS or the store's error as engine::ReadRunRecord.
absl::Status CheckRunVisible(store::Store& store, const std::string& run_id,
                             const std::optional<std::string>& tenant);

// The idempotency key as the engine stores it: the same key in two tenants
// names two runs. Keys of the empty tenant (authentication off) are kept as
// they are, so turning authentication on keeps the runs submitted before.
std::string ScopedIdempotencyKey(absl::string_view tenant, absl::string_view key);

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_RUN_ACCESS_H_
