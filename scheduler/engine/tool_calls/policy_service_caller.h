#ifndef TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_POLICY_SERVICE_CALLER_H_
#define TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_POLICY_SERVICE_CALLER_H_

// How the engine reaches a client-run PolicyService (`custom{external:
// ADDR}`, docs/semantics.md#external-policies) without knowing gRPC: the server layer implements
// it (scheduler/server/policy_service_client.h), tests fake it.

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::engine {

class PolicyServiceCaller {
 public:
  virtual ~PolicyServiceCaller() = default;
  // Calls SelectPriorWork at `address` with a deadline of `timeout_ms`.
  // Never blocks; `done` runs exactly once, on any thread, with the response
  // or the error (DEADLINE_EXCEEDED, UNAVAILABLE, ...).
  virtual void Select(const std::string& address, v1::SelectPriorWorkRequest request,
                      int64_t timeout_ms,
                      std::function<void(absl::StatusOr<v1::SelectPriorWorkResponse>)> done) = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_POLICY_SERVICE_CALLER_H_
