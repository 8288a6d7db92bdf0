#ifndef TASKBOARD_TOOLS_CLI_RUNS_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_RUNS_COMMAND_H_

// `taskboard runs`: the most recent runs, newest first, as a table (id, flow,
// kind, status, done/total, cost, age), filtered by status and flow name.

#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/time/time.h"
#include "taskboard/v1/scheduler.pb.h"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct RunsOptions {
  std::vector<std::string> statuses;  // names (running, failed, ...); any of them
  std::string flow_name;
  std::string parent_run_id;  // only the child runs of this run
  std::string tenant;         // admins: only this tenant's runs
  int limit = 20;
  bool json = false;
  std::string scheduler;
  int width = 0;  // of standard output; 0 = no limit
};

// Exit codes: 0 listed; 1 rejected by the scheduler; 2 unknown status name or
// no scheduler.
int RunListRuns(const RunsOptions& options, std::ostream& out, std::ostream& err);

// The table `runs` prints (separate for tests).
void PrintRunTable(const v1::ListRunsResponse& runs, absl::Time now, int width, std::ostream& out);

void AddRunsCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_RUNS_COMMAND_H_
