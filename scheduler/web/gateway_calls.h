#ifndef TASKBOARD_SCHEDULER_WEB_GATEWAY_CALLS_H_
#define TASKBOARD_SCHEDULER_WEB_GATEWAY_CALLS_H_

// The MCP tools' SchedulerCalls (scheduler/mcp/scheduler_calls.h) through a
// JsonGateway with one caller's Authorization: the HTTP caller's for the
// scheduler's POST /mcp, the CLI's token over its own channel for
// `taskboard mcp` (docs/mcp.md#taskboard-as-an-mcp-server).

#include <string>
#include <utility>

#include "scheduler/mcp/scheduler_calls.h"
#include "scheduler/web/json_gateway.h"

namespace taskboard::web {

class GatewayCalls : public mcp::SchedulerCalls {
 public:
  // `gateway` must outlive this. `authorization`: the header's value
  // ("Bearer <token>"), empty for none.
  GatewayCalls(JsonGateway& gateway, std::string authorization)
      : gateway_(gateway), authorization_(std::move(authorization)) {}

  absl::StatusOr<Json> Call(absl::string_view method, const Json& request) override;

 private:
  JsonGateway& gateway_;
  const std::string authorization_;
};

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_GATEWAY_CALLS_H_
