#ifndef TASKBOARD_TOOLS_CLI_SHOW_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_SHOW_COMMAND_H_

// `taskboard show RUN`: one run as it stands: the rendered frame (phases or
// tasks by DAG layer, child runs nested under the tasks they carry out), a table of every task
// (state, agent, attempt, worker, duration, why it failed or was skipped), the tool calls of the
// tasks that ran (task_tool_calls.h) and the output.
//
// Tool calls and prior work come from GetTask, one call per task. A run can
// have thousands of tasks, so by default only the first `max_tasks` tasks that
// started are fetched and listed (with a line saying how many more ran); `--task`
// names the ones to list instead. GetTask rather than replaying the run's
// event log: only GetTask has the prior work a policy chose, the replay would
// stream every output delta of the run, and GetTask's cost is bounded by the
// tasks shown.

#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "taskboard/v1/scheduler.pb.h"
#include "tools/cli/command_set.h"
#include "tools/cli/terminal.h"

namespace taskboard::cli {

struct ShowOptions {
  std::string run_id;
  bool json = false;  // the Run message as JSON instead (GetTaskResponses with --task)
  // Tool calls of at most this many tasks that ran, in the order they started;
  // 0 = all.
  int max_tasks = 20;
  // Only these tasks, every call listed (repeatable `--task`).
  std::vector<std::string> task_ids;
  std::string scheduler;
  TerminalInfo terminal;  // of standard output
};

// What `show` fetched with GetTask, for PrintRunDetails.
struct TaskDetails {
  std::vector<v1::GetTaskResponse> tasks;
  // Tasks that ran but were left out by `max_tasks`.
  int not_listed = 0;
  // Calls listed per task; 0 = all.
  int max_calls = 0;
  // Snapshots of the run's child runs (nested patterns), shown beneath the
  // tasks they carry out.
  absl::flat_hash_map<std::string, v1::Run> children;
};

// Exit codes: 0 shown (whatever the run's status); 1 unknown run or task; 2
// no scheduler.
int RunShow(const ShowOptions& options, std::ostream& out, std::ostream& err);

// The text `show` prints for `run` and the tasks it fetched (separate for
// tests).
void PrintRunDetails(const v1::Run& run, absl::Time now, const TerminalInfo& terminal,
                     std::ostream& out, const TaskDetails& details = {});

void AddShowCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_SHOW_COMMAND_H_
