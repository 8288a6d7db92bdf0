// `taskboard`: the command-line client of a Taskboard scheduler.
//
// Commands that only need the flow core (validate) work offline; the rest
// talk to a scheduler at --scheduler / TASKBOARD_SCHEDULER. Every command
// lives in tools/cli/<name>_command.*; cli_app.cc registers them.

#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "tools/cli/cli_app.h"
#include "tools/cli/terminal.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return taskboard::cli::RunCli(args, std::cout, std::cerr,
                                taskboard::cli::DetectTerminal(STDOUT_FILENO),
                                taskboard::cli::DetectTerminal(STDERR_FILENO));
}
