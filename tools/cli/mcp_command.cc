#include "tools/cli/mcp_command.h"

#include <cstdlib>
#include <iostream>
#include <memory>

#include "common/mcp/server_session.h"
#include "common/mcp/stdio_transport.h"
#include "scheduler/mcp/taskboard_tools.h"
#include "scheduler/web/gateway_calls.h"
#include "scheduler/web/json_gateway.h"
#include "tools/cli/scheduler_client.h"

namespace taskboard::cli {

int RunMcp(const McpOptions& options, std::istream& in, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  // The scheduler's own HTTP gateway over the CLI's channel: the tools call
  // the Scheduler methods by name with JSON exactly as POST /mcp does.
  web::GatewayOptions gateway_options;
  gateway_options.call_timeout = SchedulerClient::kCallTimeout;
  web::JsonGateway gateway(client.channel(), gateway_options);
  web::GatewayCalls calls(gateway, client.authorization());
  mcp::TaskboardToolsOptions tool_options;
  tool_options.max_wait_seconds = options.max_wait_seconds;
  // Run by a task's agent, the worker gave it the task's identity
  // (docs/mcp.md#flowstate): runs it starts are that task's child runs.
  if (const char* run_id = std::getenv("TASKBOARD_RUN_ID"); run_id != nullptr) {
    tool_options.started_by_run_id = run_id;
  }
  if (const char* task_id = std::getenv("TASKBOARD_TASK_ID"); task_id != nullptr) {
    tool_options.started_by_task_id = task_id;
  }
  mcp::TaskboardTools tools(calls, tool_options);
  mcp::ServerOptions session_options;
  session_options.max_message_bytes = static_cast<size_t>(options.max_message_bytes);
  mcp::ServerSession session(std::move(session_options), tools);
  err << "taskboard mcp: serving MCP over stdio for the scheduler at " << client.address() << "\n";
  mcp::ServeLines(session, in, out, static_cast<size_t>(options.max_message_bytes));
  return 0;
}

void AddMcpCommand(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<McpOptions>();
  CLI::App* command = app.add_subcommand(
      "mcp", "Serve Taskboard's tools to an MCP client over stdio (docs/mcp.md)");
  command
      ->add_option("--max-wait-seconds", options->max_wait_seconds,
                   "The longest run_flow may wait for a run to end")
      ->check(CLI::Range(0, 3600))
      ->capture_default_str();
  command
      ->add_option("--max-message-bytes", options->max_message_bytes,
                   "The longest MCP message accepted on standard input")
      ->check(CLI::Range(int64_t{1024}, int64_t{256} << 20))
      ->capture_default_str();
  AddSchedulerOption(command, &options->scheduler);
  commands.Add(command, [options](std::ostream& out, std::ostream& err) {
    return RunMcp(*options, std::cin, out, err);
  });
}

}  // namespace taskboard::cli
