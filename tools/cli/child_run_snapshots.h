#ifndef TASKBOARD_TOOLS_CLI_CHILD_RUN_SNAPSHOTS_H_
#define TASKBOARD_TOOLS_CLI_CHILD_RUN_SNAPSHOTS_H_

// Snapshots of a run's child runs (nested patterns: a plan step carried out
// by a supervisor run), for the nested rows of the live view and `show`.
// A child's progress raises no event on its parent, so whoever shows the
// parent fetches its children with GetRun, recursively.

#include <string>

#include "absl/container/flat_hash_map.h"
#include "grpcpp/grpcpp.h"
#include "taskboard/v1/scheduler.pb.h"
#include "tools/cli/scheduler_client.h"

namespace taskboard::cli {

// Fetches every child run of `run` (and of its children) into `children`,
// keyed by run id. A child already there that has settled is not fetched
// again. Returns the first RPC error (what was fetched before it stays).
grpc::Status FetchChildRuns(SchedulerClient& client, const v1::Run& run,
                            absl::flat_hash_map<std::string, v1::Run>* children);

// True when some child in `children` of `run` (or deeper) is still running,
// or a child is not fetched yet: the view must keep refreshing them.
bool ChildRunsUnsettled(const v1::Run& run,
                        const absl::flat_hash_map<std::string, v1::Run>& children);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_CHILD_RUN_SNAPSHOTS_H_
