#ifndef TASKBOARD_TOOLS_CLI_WATCH_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_WATCH_COMMAND_H_

// `taskboard watch RUN`: follows an existing run live, from the start of its
// event log, until it finishes (at once for a finished run), like `run` does
// after submitting.

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "tools/cli/command_set.h"
#include "tools/cli/run_follower.h"

namespace taskboard::cli {

struct WatchOptions {
  std::string run_id;
  std::string scheduler;
  FollowOptions follow;
};

// Exit codes as FollowRun: 0 completed, 1 did not complete or unknown run,
// 2 no scheduler.
int RunWatch(const WatchOptions& options, std::ostream& out, std::ostream& err);

void AddWatchCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_WATCH_COMMAND_H_
