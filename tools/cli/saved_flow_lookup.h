#ifndef TASKBOARD_TOOLS_CLI_SAVED_FLOW_LOOKUP_H_
#define TASKBOARD_TOOLS_CLI_SAVED_FLOW_LOOKUP_H_

// Finding the scheduler's saved flows for `run NAME` and `flows`: whether a
// command-line word names a file or a saved flow, every saved flow across
// pages, and one flow by name with an error that lists what exists.

#include <ostream>
#include <string>

#include "absl/strings/string_view.h"
#include "taskboard/v1/scheduler.pb.h"
#include "tools/cli/scheduler_client.h"

namespace taskboard::cli {

// True for `-` (standard input), an existing path, or a name ending in
// .yaml, .yml or .json (so a mistyped file is reported as unreadable, not
// looked up as a flow); anything else names a saved flow, like pi-taskflow's
// `/tf:<name>`.
bool NamesFlowFile(const std::string& word);

// Every saved flow (latest version of each), following ListFlows pages.
// 0, or the exit code of the failed call (printed under `command`).
int ListAllFlows(SchedulerClient& client, absl::string_view command, v1::ListFlowsResponse* all,
                 std::ostream& err);

// The latest version of saved flow `name`. 0; 1 when there is no such flow
// (the message lists the saved flows and how to run a file instead); else
// the failed call's exit code.
int FetchSavedFlow(SchedulerClient& client, absl::string_view command, const std::string& name,
                   v1::SavedFlow* flow, std::ostream& err);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_SAVED_FLOW_LOOKUP_H_
