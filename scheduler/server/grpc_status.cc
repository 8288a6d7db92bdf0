#include "scheduler/server/grpc_status.h"

#include <string>

#include "absl/strings/cord.h"
#include "google/rpc/status.pb.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/server/not_leader.h"
#include "scheduler/triggers/retry_after.h"
#include "taskboard/v1/triggers.pb.h"

namespace taskboard::server {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // absl and gRPC share the canonical code numbering.
  auto code = static_cast<grpc::StatusCode>(static_cast<int>(status.code()));
  std::string message(status.message());
  const bool flow_errors = status.GetPayload(flow::kFlowErrorsPayloadUrl).has_value();
  const std::optional<v1::NotLeader> not_leader = NotLeaderOf(status);
  const auto retry_after = status.GetPayload(triggers::kRetryAfterPayloadUrl);
  if (!flow_errors && !not_leader.has_value() && !retry_after.has_value()) {
    return grpc::Status(code, message);
  }
  google::rpc::Status details;
  details.set_code(static_cast<int>(status.code()));
  details.set_message(message);
  if (flow_errors) details.add_details()->PackFrom(flow::FlowErrorsFromStatus(status));
  if (not_leader.has_value()) details.add_details()->PackFrom(*not_leader);
  if (v1::RetryAfter retry;
      retry_after.has_value() && retry.ParseFromString(std::string(*retry_after))) {
    details.add_details()->PackFrom(retry);
  }
  return grpc::Status(code, message, details.SerializeAsString());
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  absl::Status out(static_cast<absl::StatusCode>(static_cast<int>(status.error_code())),
                   status.error_message());
  google::rpc::Status details;
  if (status.error_details().empty() || !details.ParseFromString(status.error_details())) {
    return out;
  }
  for (const google::protobuf::Any& detail : details.details()) {
    v1::FlowErrors errors;
    v1::NotLeader not_leader;
    v1::RetryAfter retry;
    if (detail.UnpackTo(&errors)) {
      out.SetPayload(flow::kFlowErrorsPayloadUrl, absl::Cord(errors.SerializeAsString()));
    } else if (detail.UnpackTo(&not_leader)) {
      out.SetPayload(kNotLeaderPayloadUrl, absl::Cord(not_leader.SerializeAsString()));
    } else if (detail.UnpackTo(&retry)) {
      out.SetPayload(triggers::kRetryAfterPayloadUrl, absl::Cord(retry.SerializeAsString()));
    }
  }
  return out;
}

}  // namespace taskboard::server
