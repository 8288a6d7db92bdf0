#ifndef TASKBOARD_TOOLS_CLI_CANCEL_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_CANCEL_COMMAND_H_

// `taskboard cancel RUN [--reason TEXT]`: stops dispatching the run's tasks,
// cancels the running ones and ends the run `cancelled` (resumable later).

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct CancelOptions {
  std::string run_id;
  std::string reason;
  std::string scheduler;
};

// Exit codes: 0 cancelled; 1 unknown run or already finished; 2 no scheduler.
int RunCancel(const CancelOptions& options, std::ostream& out, std::ostream& err);

void AddCancelCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_CANCEL_COMMAND_H_
