#include "scheduler/server/policy_service_client.h"

#include <chrono>
#include <utility>

#include "absl/status/status.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"

namespace taskboard::server {

PolicyServiceClient::~PolicyServiceClient() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(this, &PolicyServiceClient::Idle));
}

v1::PolicyService::Stub& PolicyServiceClient::StubFor(const std::string& address) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<v1::PolicyService::Stub>& stub = stubs_[address];
  if (stub == nullptr) {
    stub = v1::PolicyService::NewStub(
        grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  }
  return *stub;
}

void PolicyServiceClient::Select(
    const std::string& address, v1::SelectPriorWorkRequest request, int64_t timeout_ms,
    std::function<void(absl::StatusOr<v1::SelectPriorWorkResponse>)> done) {
  // Lives until the call's callback: gRPC needs the context and both
  // messages until then.
  struct Call {
    grpc::ClientContext context;
    v1::SelectPriorWorkRequest request;
    v1::SelectPriorWorkResponse response;
    std::function<void(absl::StatusOr<v1::SelectPriorWorkResponse>)> done;
  };
  auto* call = new Call;
  call->request = std::move(request);
  call->done = std::move(done);
  call->context.set_deadline(std::chrono::system_clock::now() +
                             std::chrono::milliseconds(timeout_ms));
  {
    absl::MutexLock lock(&mu_);
    ++in_flight_;
  }
  StubFor(address).async()->SelectPriorWork(
      &call->context, &call->request, &call->response, [this, call](grpc::Status status) {
        if (status.ok()) {
          call->done(std::move(call->response));
        } else {
          call->done(absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                                  status.error_message()));
        }
        delete call;
        absl::MutexLock lock(&mu_);
        --in_flight_;
      });
}

}  // namespace taskboard::server
