#ifndef TASKBOARD_TOOLS_CLI_MCP_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_MCP_COMMAND_H_

// `taskboard mcp`: Taskboard as an MCP server over stdio
// (docs/mcp.md#taskboard-as-an-mcp-server). An MCP client (Claude Code,
// an IDE, an agent in a flow) starts it and speaks newline-delimited
// JSON-RPC on its standard input and output; its tools list, describe and
// run saved flows, read and cancel runs, and list and decide approvals on
// the scheduler at --scheduler, with --token's rights. Logs go to standard
// error; standard output carries only MCP messages.

#include <cstdint>
#include <istream>
#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct McpOptions {
  std::string scheduler;
  // run_flow's longest wait.
  int max_wait_seconds = 300;
  // The longest message accepted on standard input.
  int64_t max_message_bytes = 4 << 20;
};

// Serves until `in` ends. Exit code 0.
int RunMcp(const McpOptions& options, std::istream& in, std::ostream& out, std::ostream& err);

void AddMcpCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_MCP_COMMAND_H_
