#ifndef TASKBOARD_SCHEDULER_SERVER_POLICY_SERVICE_CLIENT_H_
#define TASKBOARD_SCHEDULER_SERVER_POLICY_SERVICE_CLIENT_H_

// The engine's PolicyServiceCaller over gRPC: one channel per PolicyService
// address (reused across calls), asynchronous unary calls on the callback
// API with the policy's deadline. The destructor waits for calls in flight,
// so destroy it after the engine has stopped issuing calls and before the
// engine their answers post to is destroyed (SchedulerServer orders this).

#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/engine/tool_calls/policy_service_caller.h"
#include "taskboard/v1/policy.grpc.pb.h"

namespace taskboard::server {

class PolicyServiceClient final : public engine::PolicyServiceCaller {
 public:
  PolicyServiceClient() = default;
  ~PolicyServiceClient() override;

  void Select(const std::string& address, v1::SelectPriorWorkRequest request, int64_t timeout_ms,
              std::function<void(absl::StatusOr<v1::SelectPriorWorkResponse>)> done) override;

 private:
  v1::PolicyService::Stub& StubFor(const std::string& address) ABSL_LOCKS_EXCLUDED(mu_);
  bool Idle() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return in_flight_ == 0; }

  absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<v1::PolicyService::Stub>> stubs_ ABSL_GUARDED_BY(mu_);
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_POLICY_SERVICE_CLIENT_H_
