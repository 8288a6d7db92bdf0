#ifndef TASKBOARD_SCHEDULER_SERVER_GRPC_STATUS_H_
#define TASKBOARD_SCHEDULER_SERVER_GRPC_STATUS_H_

// The one place absl::Status becomes grpc::Status. A status carrying flow
// validation errors (flow_errors.h payload) travels as a google.rpc.Status
// with a taskboard.v1.FlowErrors detail in grpc-status-details-bin, so every
// gRPC language can decode the list (docs/api.md); likewise a replica's
// NotLeader answer (not_leader.h) with a taskboard.v1.NotLeader detail.

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace taskboard::server {

grpc::Status ToGrpcStatus(const absl::Status& status);

// The way back, for the scheduler's own in-process calls (the HTTP API,
// scheduler/web/): the code, the message and a FlowErrors or NotLeader
// detail as the status's payload again.
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_GRPC_STATUS_H_
