#ifndef TASKBOARD_TOOLS_CLI_RPC_CALL_H_
#define TASKBOARD_TOOLS_CLI_RPC_CALL_H_

// The shape of every unary call a command makes: one call with the client's
// deadline and token, on the scheduler leader (SchedulerClient::Call); on
// failure the error is printed for a person (rpc_errors.h) and its exit code
// returned.

#include <ostream>

#include "absl/strings/string_view.h"
#include "grpcpp/grpcpp.h"
#include "tools/cli/rpc_errors.h"
#include "tools/cli/scheduler_client.h"

namespace taskboard::cli {

// 0 when the call succeeded (`response` filled), else ReportRpcError's code.
template <typename Request, typename Response>
int CallScheduler(SchedulerClient& client, absl::string_view command,
                  SchedulerMethod<Request, Response> method, const Request& request,
                  Response* response, std::ostream& err) {
  const grpc::Status status = client.Call(method, request, response);
  return status.ok() ? 0 : ReportRpcError(command, client.address(), status, err);
}

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_RPC_CALL_H_
