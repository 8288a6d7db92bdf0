#ifndef TASKBOARD_SCHEDULER_MCP_SCHEDULER_CALLS_H_
#define TASKBOARD_SCHEDULER_MCP_SCHEDULER_CALLS_H_

// How the taskboard MCP tools reach the scheduler: a Scheduler method by
// name, its request and response in protobuf's JSON mapping. The scheduler's
// POST /mcp implements it with the HTTP API's in-process gateway and the
// HTTP caller's Authorization, `taskboard mcp` with the same gateway over
// the CLI's channel and token (scheduler/web/gateway_calls.h), so a tool
// gets exactly the token checks, roles, tenants and limits of a gRPC client
// (docs/mcp.md#taskboard-as-an-mcp-server). Tests use a fake.

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard::mcp {

class SchedulerCalls {
 public:
  virtual ~SchedulerCalls() = default;
  // Calls unary method `method` ("GetRun") with `request` (an object) and
  // waits: its response, or the call's status (the codes of the method in
  // docs/api.md). Safe to call from several threads.
  virtual absl::StatusOr<Json> Call(absl::string_view method, const Json& request) = 0;
};

}  // namespace taskboard::mcp

#endif  // TASKBOARD_SCHEDULER_MCP_SCHEDULER_CALLS_H_
