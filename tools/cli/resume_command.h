#ifndef TASKBOARD_TOOLS_CLI_RESUME_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_RESUME_COMMAND_H_

// `taskboard resume RUN`: re-executes a failed, blocked, cancelled or paused
// run under the same id, reusing the phases whose inputs did not change;
// prints which were reused, then follows the run like `run` does.
// `--budget-usd X` / `--budget-tokens N` raise the run's budget (the new
// totals) on the way, which is how a run paused on its budget continues.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "tools/cli/command_set.h"
#include "tools/cli/run_follower.h"

namespace taskboard::cli {

struct ResumeOptions {
  std::string run_id;
  bool no_watch = false;
  // New budget totals (ResumeRunRequest); unset: the budget stays as it is.
  // Must be > 0; the scheduler also wants them above what was billed.
  std::optional<double> budget_usd;
  std::optional<int64_t> budget_tokens;
  std::string scheduler;
  FollowOptions follow;  // after_seq is set from the run before resuming
};

// Exit codes: as FollowRun; with no_watch 0 once resumed. 1 when the run
// cannot be resumed (unknown, running or completed) or the scheduler refused
// the budget; 2 for a budget that is not above 0 (nothing is sent).
int RunResume(const ResumeOptions& options, std::ostream& out, std::ostream& err);

void AddResumeCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_RESUME_COMMAND_H_
