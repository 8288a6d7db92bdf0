#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_SAVED_FLOWS_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_SAVED_FLOWS_H_

// Named, versioned flow definitions (docs/semantics.md#saved-flows): each save of a name
// adds version N+1; SubmitRun accepts a saved name (latest or a version).
// Saved flows do not touch runs, so they bypass the engine loop; a mutex
// serializes saves and deletes. Thread-safe.
//
// On a replicated scheduler's leader, saves and deletes write the store
// while Get and List read the view of acknowledged writes (ReadFrom,
// docs/high-availability.md#acknowledged-writes): a version still waiting
// for the followers is not served, nor a deleted one hidden, before the
// SaveFlow or DeleteFlow that wrote it is answered.
//
// Every tenant has its own flows (docs/security.md): the same name saved by
// two tenants is two flows, and one tenant never reads, lists or deletes
// another's. Keys start with the tenant (store/keys.h), so a tenant's
// listing and quota read only its own keys.
//
// What a tenant may keep is bounded (docs/security.md#limits): at most
// `max_versions` versions per name (a save past it deletes the oldest: runs
// carry their own copy of the flow, and there is no call that deletes one
// version, so refusing would leave a client only "delete every version"),
// at most `max_flows_per_tenant` names and `max_bytes_per_tenant` bytes of
// stored versions (a save past either is refused). The counts come from the
// store: a tenant's keys are read once, on its first save or delete since
// the scheduler started, and kept up to date after, as this class is the
// only writer of the flows column.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/flow.pb.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine {

namespace saved_flow_flags {
inline constexpr char kMaxVersions[] = "--saved-flow-max-versions";
inline constexpr char kMaxPerTenant[] = "--saved-flows-max-per-tenant";
inline constexpr char kMaxBytesPerTenant[] = "--saved-flows-max-bytes-per-tenant";
}  // namespace saved_flow_flags

struct SavedFlowLimits {
  // Versions kept per name; saving one more deletes the oldest.
  int max_versions = 100;
  // Names one tenant may have saved.
  int64_t max_flows_per_tenant = 1'000;
  // Bytes of one tenant's stored versions (each a spec and its DSL text).
  int64_t max_bytes_per_tenant = int64_t{64} << 20;
};

class SavedFlows {
 public:
  // Saved flows of `store` (which outlives them), after moving keys of the
  // old layout (store/flow_key_migration.h). Errors are the store's.
  static absl::StatusOr<std::unique_ptr<SavedFlows>> Create(store::Store* store,
                                                            SavedFlowLimits limits = {});

  // Stores `spec` (validated by the caller) as the next version of its name,
  // deleting the oldest versions past max_versions. RESOURCE_EXHAUSTED
  // naming the flag when a new name would pass max_flows_per_tenant or the
  // version max_bytes_per_tenant; nothing is written then.
  absl::StatusOr<v1::SavedFlow> Save(const std::string& tenant, const v1::FlowSpec& spec,
                                     std::string source, int64_t now_ms);
  // `version` 0 = the latest. NOT_FOUND names the flow and how to list flows.
  absl::StatusOr<v1::SavedFlow> Get(const std::string& tenant, const std::string& name,
                                    int64_t version);
  // The latest version of each of the tenant's flows, by name.
  absl::StatusOr<v1::ListFlowsResponse> List(const std::string& tenant,
                                             const v1::ListFlowsRequest& request);
  // Deletes every version; NOT_FOUND when there is none.
  absl::StatusOr<int64_t> Delete(const std::string& tenant, const std::string& name);

  // Get and List read `view` (which outlives this) from now on instead of
  // the store Save writes; set before the first read. Save and Delete keep
  // reading the store: the next version follows the last one written.
  void ReadFrom(store::Store* view) { reads_ = view; }

 private:
  // What one tenant has stored.
  struct TenantUsage {
    int64_t flows = 0;
    int64_t bytes = 0;
  };

  SavedFlows(store::Store* store, SavedFlowLimits limits)
      : store_(store), reads_(store), limits_(limits) {}
  // The tenant's usage, read from the store the first time.
  absl::StatusOr<TenantUsage*> UsageOf(const std::string& tenant)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  store::Store* store_;
  store::Store* reads_;  // Get and List
  const SavedFlowLimits limits_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, TenantUsage> usage_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_SAVED_FLOWS_H_
