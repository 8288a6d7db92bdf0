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
  // The running task this server was started for, if any: `taskboard mcp`
  // run by a task's agent reads them from TASKBOARD_RUN_ID and
  // TASKBOARD_TASK_ID. run_flow then starts its runs as that task's
  // (SubmitRunRequest.started_by: a child run, docs/semantics.md#nested-runs).
  // A call's `_meta["taskboard/flow_state"]` (a worker calling this server
  // as an MCP tool source, docs/mcp.md#flowstate) names the task instead.
  std::string started_by_run_id;
  std::string started_by_task_id;
};

class TaskboardTools : public ToolTable {
 public:
  // `calls` must outlive the tools.
  TaskboardTools(SchedulerCalls& calls, TaskboardToolsOptions options = {});

  std::vector<ToolDescription> List() const override;
  bool Has(const std::string& name) const override;
  ToolResult Call(const std::string& name, const Json& arguments, const Json& meta) override;

 private:
  ToolResult ListFlows(const Json& arguments);
  ToolResult DescribeFlow(const Json& arguments);
  ToolResult RunFlow(const Json& arguments, const Json& meta);
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
