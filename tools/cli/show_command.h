#ifndef TASKBOARD_TOOLS_CLI_SHOW_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_SHOW_COMMAND_H_

// `taskboard show RUN`: one run as it stands: the rendered frame (phases or
// tasks by DAG layer), a table of every task (state, agent, attempt, worker,
// duration, why it failed or was skipped) and the output.

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/time/time.h"
#include "taskboard/v1/scheduler.pb.h"
#include "tools/cli/command_set.h"
#include "tools/cli/terminal.h"

namespace taskboard::cli {

struct ShowOptions {
  std::string run_id;
  bool json = false;  // the Run message as JSON instead
  std::string scheduler;
  TerminalInfo terminal;  // of standard output
};

// Exit codes: 0 shown (whatever the run's status); 1 unknown run; 2 no
// scheduler.
int RunShow(const ShowOptions& options, std::ostream& out, std::ostream& err);

// The text `show` prints for `run` (separate for tests).
void PrintRunDetails(const v1::Run& run, absl::Time now, const TerminalInfo& terminal,
                     std::ostream& out);

void AddShowCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_SHOW_COMMAND_H_
