#ifndef TASKBOARD_SCHEDULER_MCP_TASKBOARD_TOOLS_H_
#define TASKBOARD_SCHEDULER_MCP_TASKBOARD_TOOLS_H_

// The tools Taskboard offers as an MCP server
// (docs/mcp.md#taskboard-as-an-mcp-server): list_flows, describe_flow,
// run_flow, get_run, cancel_run, list_approvals and decide_approval. Each
// checks its arguments against the schema it shows, makes its Scheduler
// calls through SchedulerCalls (so the caller's token decides what it may
// see and do) and answers JSON, as text and as structured content. A call
// the scheduler refuses is a tool error naming the code and the reason.

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "common/mcp/tool_table.h"
#include "scheduler/mcp/scheduler_calls.h"

namespace taskboard::mcp {

struct TaskboardToolsOptions {
  // The longest run_flow's wait_seconds may ask for. MCP clients give up on
  // a request after their own timeout (60 s in the TypeScript SDK), so a
  // longer wait is for clients that raise theirs.
  int max_wait_seconds = 300;
  // How often a waiting run_flow looks at the run.
  absl::Duration poll_interval = absl::Milliseconds(250);
};

class TaskboardTools : public ToolTable {
 public:
  // `calls` must outlive the tools.
  TaskboardTools(SchedulerCalls& calls, TaskboardToolsOptions options = {});

  std::vector<ToolDescription> List() const override;
  bool Has(const std::string& name) const override;
  ToolResult Call(const std::string& name, const Json& arguments) override;

 private:
  ToolResult ListFlows(const Json& arguments);
  ToolResult DescribeFlow(const Json& arguments);
  ToolResult RunFlow(const Json& arguments);
  ToolResult GetRun(const Json& arguments);
  ToolResult CancelRun(const Json& arguments);
  ToolResult ListApprovals(const Json& arguments);
  ToolResult DecideApproval(const Json& arguments);

  SchedulerCalls& calls_;
  const TaskboardToolsOptions options_;
  const std::vector<ToolDescription> descriptions_;
};

}  // namespace taskboard::mcp

#endif  // TASKBOARD_SCHEDULER_MCP_TASKBOARD_TOOLS_H_
