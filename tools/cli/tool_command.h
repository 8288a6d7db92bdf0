#ifndef TASKBOARD_TOOLS_CLI_TOOL_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_TOOL_COMMAND_H_

// `taskboard tool NAME [JSON|-]`: calls a tool of the worker running this
// command agent, as the agent's task, through the scheduler's shared cache;
// the call is recorded in the run's ledger like an LLM agent's. The worker
// gives its agents TASKBOARD_TOOL_SOCKET and TASKBOARD_TASK_TOKEN
// (worker/session/tool_socket_server.h has the protocol); outside an agent
// the command explains that it cannot work.
//
// Arguments: a JSON object as the second argument; `-` reads it from stdin;
// none means {}. (Stdin is not read by default: in a command agent it holds
// the task envelope, which a script may not have consumed.)
// Prints the result as one line of JSON on stdout.

#include <istream>
#include <optional>
#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct ToolOptions {
  std::string tool;
  // The JSON argument as given; nullopt when none was.
  std::optional<std::string> args;
  // From TASKBOARD_TOOL_SOCKET and TASKBOARD_TASK_TOKEN.
  std::string socket_path;
  std::string token;
};

// Exit codes: 0 the result was printed; 1 the tool failed or the worker
// refused the call (`taskboard tool NAME: <error>` on stderr); 2 not inside
// an agent, arguments that are not a JSON object, or the worker unreachable.
int RunTool(const ToolOptions& options, std::istream& in, std::ostream& out, std::ostream& err);

void AddToolCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_TOOL_COMMAND_H_
