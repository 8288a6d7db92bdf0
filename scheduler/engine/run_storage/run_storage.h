#ifndef TASKBOARD_SCHEDULER_ENGINE_RUN_STORAGE_RUN_STORAGE_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUN_STORAGE_RUN_STORAGE_H_

// The durable key/value map a root run's tasks share (the FlowState
// storage of docs/mcp.md#flowstate): one map per root run, read and written
// by the root and every child run below it (decision 206), in two spaces,
// "storage" (any UTF-8 text) and "context" (JSON values).
//
// Writes go into the engine loop's batch, so a value is on disk (and, in a
// replicated scheduler, on the followers) before the caller hears it was
// set, and it survives restarts; the caller's answer is an effect of that
// batch (docs/semantics.md#delivery-and-durability). Reads answer from
// memory: a root run's map is read from the store on its first call and
// kept while the run is active (ForgetInactive drops the others); a
// tenant's usage is summed from the store on its first call and kept up to
// date after that; a write that would pass the tenant's limit sums it again
// first, since retention deletes finished runs' maps (run_deletion.h)
// without telling this class. That sum misses the writes of the batch being
// built, so a tenant may pass its limit by what one batch writes.
//
// Loop thread only: nothing here takes a lock. Who may call for which run
// is the engine's business (the task's lease names the run); this class
// trusts the tenant and root run it is given.

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/engine/run_storage/run_storage_limits.h"
#include "scheduler/store/store.h"

namespace taskboard::engine {

enum class RunStorageOp { kGet, kSet, kDelete, kList };

struct RunStorageCall {
  std::string tenant;
  std::string root_run_id;
  RunStorageOp op = RunStorageOp::kGet;
  // "storage" or "context"; "" means "storage".
  std::string space;
  std::string key;    // GET / SET / DELETE
  std::string value;  // SET
};

struct RunStorageAnswer {
  bool found = false;
  std::string value;
  std::map<std::string, std::string> entries;  // LIST
  // The root run's map after the call, both spaces.
  int64_t run_keys = 0;
  int64_t run_bytes = 0;
};

class RunStorage {
 public:
  // `store` is read for maps and usage not in memory yet (the engine's
  // pipelined store, which waits for its batches in flight); outlives this.
  RunStorage(store::Store* store, RunStorageLimits limits) : store_(store), limits_(limits) {}

  // Applies `call`, adding its write (SET / DELETE of a key that changes)
  // to `writes`. Errors: INVALID_ARGUMENT (a space other than the two, a
  // key that is empty, too long or holds control characters, a value that
  // is not UTF-8, a context value that is not JSON), RESOURCE_EXHAUSTED
  // naming the --run-state-max-* limit the SET would pass (nothing is
  // written), or a store read error as is.
  absl::StatusOr<RunStorageAnswer> Apply(const RunStorageCall& call, store::WriteBatch& writes);

  // Drops the maps of root runs for which `active` is false from memory
  // (their values stay in the store, read again on a later call); usage is
  // kept. The engine calls it when more than `max_loaded_runs` are loaded.
  void ForgetInactive(const std::function<bool(const std::string& root_run_id)>& active);
  size_t loaded_runs() const { return runs_.size(); }

  // The bytes a tenant's runs hold, as far as memory knows (nullopt: not
  // loaded yet). For tests and metrics.
  std::optional<int64_t> TenantBytes(const std::string& tenant) const;

 private:
  struct RunMap {
    std::string root_run_id;
    // space -> key -> value
    std::map<std::string, std::map<std::string, std::string>> spaces;
    int64_t keys = 0;
    int64_t bytes = 0;
  };

  absl::StatusOr<RunMap*> LoadRun(const std::string& tenant, const std::string& root_run_id);
  absl::StatusOr<int64_t*> LoadTenant(const std::string& tenant);

  store::Store* const store_;
  const RunStorageLimits limits_;
  // By RunStateOfRun(tenant, root run id): a root run id is unique, but
  // the tenant is part of the map's identity in the store too.
  absl::flat_hash_map<std::string, RunMap> runs_;
  absl::flat_hash_map<std::string, int64_t> tenant_bytes_;  // by tenant
};

// The text of `op` for messages ("get", "set", ...).
absl::string_view RunStorageOpName(RunStorageOp op);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUN_STORAGE_RUN_STORAGE_H_
