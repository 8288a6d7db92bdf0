#ifndef TASKBOARD_TOOLS_CLI_RESUME_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_RESUME_COMMAND_H_

// `taskboard resume RUN`: re-executes a failed, blocked, cancelled or paused
// run under the same id, reusing the phases whose inputs did not change;
// prints which were reused, then follows the run like `run` does.

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "tools/cli/command_set.h"
#include "tools/cli/run_follower.h"

namespace taskboard::cli {

struct ResumeOptions {
  std::string run_id;
  bool no_watch = false;
  std::string scheduler;
  FollowOptions follow;  // after_seq is set from the run before resuming
};

// Exit codes: as FollowRun; with no_watch 0 once resumed. 1 when the run
// cannot be resumed (unknown, running or completed).
int RunResume(const ResumeOptions& options, std::ostream& out, std::ostream& err);

void AddResumeCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_RESUME_COMMAND_H_
