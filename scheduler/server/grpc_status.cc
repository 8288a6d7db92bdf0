#include "scheduler/server/grpc_status.h"

#include <string>

#include "google/rpc/status.pb.h"
#include "scheduler/flow/flow_errors.h"

namespace taskboard::server {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // absl and gRPC share the canonical code numbering.
  auto code = static_cast<grpc::StatusCode>(static_cast<int>(status.code()));
  std::string message(status.message());
  if (!status.GetPayload(flow::kFlowErrorsPayloadUrl).has_value()) {
    return grpc::Status(code, message);
  }
  google::rpc::Status details;
  details.set_code(static_cast<int>(status.code()));
  details.set_message(message);
  details.add_details()->PackFrom(flow::FlowErrorsFromStatus(status));
  return grpc::Status(code, message, details.SerializeAsString());
}

}  // namespace taskboard::server
