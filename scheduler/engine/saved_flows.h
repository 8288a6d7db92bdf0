#ifndef TASKBOARD_SCHEDULER_ENGINE_SAVED_FLOWS_H_
#define TASKBOARD_SCHEDULER_ENGINE_SAVED_FLOWS_H_

// Named, versioned flow definitions (SEMANTICS.md 2.5): each save of a name
// adds version N+1; SubmitRun accepts a saved name (latest or a version).
// Saved flows do not touch runs, so they bypass the engine loop; a mutex
// serializes version assignment. Thread-safe.
//
// Every tenant has its own flows (docs/security.md): the same name saved by
// two tenants is two flows, and one tenant never reads, lists or deletes
// another's. The empty tenant (authentication off) keeps the keys flows had
// before tenants existed.

#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/flow.pb.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine {

class SavedFlows {
 public:
  explicit SavedFlows(store::Store* store) : store_(store) {}

  // Stores `spec` (validated by the caller) as the next version of its name.
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

 private:
  store::Store* store_;
  absl::Mutex mu_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_SAVED_FLOWS_H_
