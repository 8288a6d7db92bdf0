#ifndef TASKBOARD_TOOLS_CLI_RPC_ERRORS_H_
#define TASKBOARD_TOOLS_CLI_RPC_ERRORS_H_

// Turns a failed scheduler call into a message a person can act on, and the
// command's exit code. Flow and args problems (INVALID_ARGUMENT carrying
// FlowErrors in the google.rpc.Status trailer, see docs/api.md) print exactly
// like `taskboard validate` prints them.

#include <ostream>
#include <string>

#include "absl/strings/string_view.h"
#include "grpcpp/support/status.h"
#include "taskboard/v1/common.pb.h"

namespace taskboard::cli {

// Prints `status` for `command` (e.g. "taskboard run") talking to `address`.
// Returns 2 when the scheduler could not be reached or refused the
// credentials (UNAVAILABLE, DEADLINE_EXCEEDED, UNAUTHENTICATED), 1 when it
// answered and rejected the request (invalid flow, unknown run, wrong state).
int ReportRpcError(absl::string_view command, const std::string& address,
                   const grpc::Status& status, std::ostream& err);

// The FlowErrors carried in the status details (empty when there are none or
// the details do not parse).
v1::FlowErrors FlowErrorsFromRpcStatus(const grpc::Status& status);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_RPC_ERRORS_H_
