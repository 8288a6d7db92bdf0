#include "worker/session/run_state_client.h"

#include "absl/strings/str_cat.h"
#include "grpcpp/client_context.h"
#include "taskboard/v1/worker.grpc.pb.h"

namespace taskboard::worker {

absl::StatusOr<v1::RunStateResponse> RunStateClient::Call(const v1::RunStateRequest& request) {
  std::shared_ptr<grpc::Channel> channel = channel_();
  if (channel == nullptr) {
    return absl::UnavailableError("the worker is not connected to a scheduler; try again");
  }
  std::unique_ptr<v1::WorkerGateway::Stub> stub = v1::WorkerGateway::NewStub(channel);
  grpc::ClientContext context;
  if (!token_.empty()) context.AddMetadata("authorization", absl::StrCat("Bearer ", token_));
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout_));
  v1::RunStateResponse response;
  const grpc::Status status = stub->RunState(&context, request, &response);
  if (!status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                        status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED
                            ? "the scheduler did not answer in time; try again"
                            : status.error_message());
  }
  return response;
}

}  // namespace taskboard::worker
