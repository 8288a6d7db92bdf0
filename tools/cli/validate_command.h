#ifndef TASKBOARD_TOOLS_CLI_VALIDATE_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_VALIDATE_COMMAND_H_

// `taskboard validate FILE`: checks a flow file locally, without a scheduler.
// On success prints a summary, the DAG layers (taskflow) and the desugared
// flow; on failure prints every error with its path.

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct ValidateOptions {
  std::string path;    // "-" reads standard input
  bool quiet = false;  // summary line only, no desugared flow
};

// Exit codes: 0 valid, 1 invalid flow (syntax errors included), 2 the file
// could not be read.
int RunValidate(const ValidateOptions& options, std::ostream& out, std::ostream& err);

void AddValidateCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_VALIDATE_COMMAND_H_
