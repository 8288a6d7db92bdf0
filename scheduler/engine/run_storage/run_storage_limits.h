#ifndef TASKBOARD_SCHEDULER_ENGINE_RUN_STORAGE_RUN_STORAGE_LIMITS_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUN_STORAGE_RUN_STORAGE_LIMITS_H_

// What the run storage of docs/mcp.md#flowstate may hold. A value is
// counted as its key's bytes plus its own; both spaces ("storage" and
// "context") of a root run count together. The scheduler flags
// --run-state-max-* set them (scheduler/process/scheduler_flags.cc).

#include <cstdint>

namespace taskboard::engine {

struct RunStorageLimits {
  // Keys of one root run (its children included).
  int64_t max_keys_per_run = 1'000;
  // One value.
  int64_t max_value_bytes = 64 << 10;
  // Keys and values of one root run.
  int64_t max_run_bytes = 1 << 20;
  // Keys and values of every run of one tenant.
  int64_t max_tenant_bytes = 64 << 20;
};

// One key: 1-256 bytes of UTF-8 without control characters (not a flag: a
// key is a name, not data).
inline constexpr int64_t kRunStorageMaxKeyBytes = 256;

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUN_STORAGE_RUN_STORAGE_LIMITS_H_
