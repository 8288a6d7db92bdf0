#ifndef TASKBOARD_TOOLS_CLI_STATE_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_STATE_COMMAND_H_

// `taskboard state get|set|delete|list|info`: the task's FlowState from
// inside a command agent or a command tool (docs/agents-command.md#run-storage,
// docs/mcp.md#flowstate). Each is a call of the matching built-in tool
// (state_get, state_set, state_delete, state_list, flow_state) over the
// worker's tool socket, exactly as `taskboard tool` makes it
// (tool_command.h), printed for scripts:
//
//   taskboard state set KEY VALUE [--context]   (VALUE `-`: stdin)
//   taskboard state get KEY [--context]          the value; exit 3 when unset
//   taskboard state delete KEY [--context]
//   taskboard state list [--context]             {"key": value, ...}
//   taskboard state info [--conversation]        run, task, root, parent, turn
//
// In the storage space (the default) values are text, printed as is; in
// the context space (--context) they are JSON, printed as JSON.

#include <istream>
#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "tools/cli/command_set.h"
#include "tools/cli/tool_command.h"

namespace taskboard::cli {

struct StateOptions {
  // get | set | delete | list | info
  std::string verb;
  std::string key;
  std::string value;
  bool context = false;
  bool conversation = false;
  // From TASKBOARD_TOOL_SOCKET and TASKBOARD_TASK_TOKEN.
  std::string socket_path;
  std::string token;
};

// Exit codes: those of RunTool (0, 1 refused or failed, 2 not inside a
// task), and 3 for `get` of a key that is not set.
int RunState(const StateOptions& options, std::istream& in, std::ostream& out, std::ostream& err);

void AddStateCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_STATE_COMMAND_H_
