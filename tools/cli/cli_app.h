#ifndef TASKBOARD_TOOLS_CLI_CLI_APP_H_
#define TASKBOARD_TOOLS_CLI_CLI_APP_H_

// The whole `taskboard` command line: every command registered, one parse,
// the chosen command run. main() is this with the real streams and
// terminals; tests call it with string streams to check parsing end to end.

#include <ostream>
#include <string>
#include <vector>

#include "tools/cli/terminal.h"

namespace taskboard::cli {

// `args` without the program name. Returns the exit code: the command's, 0
// for --help/--version, 2 for a usage error (printed with a hint).
int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
           const TerminalInfo& out_terminal = {}, const TerminalInfo& err_terminal = {});

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_CLI_APP_H_
