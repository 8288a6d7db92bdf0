#ifndef TASKBOARD_TOOLS_CLI_HA_STATUS_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_HA_STATUS_COMMAND_H_

// `taskboard admin ha status --scheduler a,b,c`: asks every replica named
// for its own status (the ReplicaAdmin service, answered by followers too;
// docs/high-availability.md#operating-replicas) and prints one row each:
// its role, term, how far it applied and how far behind the leader it is,
// whether the leader counts it in sync, and the replicas that did not
// answer with why.

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/time/time.h"
#include "scheduler/ha/replication.pb.h"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct HaStatusOptions {
  std::string scheduler;
  bool json = false;
};

// One replica's answer, or why there is none.
struct ReplicaAnswer {
  std::string address;
  std::optional<ha::v1::ReplicaStatus> status;
  std::string error;  // when no status
};

class SchedulerClient;

// Asks every replica `client` names for its status, each within `timeout`
// (failover by hand uses this too, tools/cli/ha_failover_command.h).
std::vector<ReplicaAnswer> AskReplicas(SchedulerClient& client, absl::Duration timeout);

// The table (or, with `json`, one JSON object with a "replicas" array).
void PrintHaStatus(const std::vector<ReplicaAnswer>& answers, bool json, std::ostream& out);

// Exit codes: 0 exactly one replica answered as the leader; 1 none or more
// than one did (the table says which); 2 no replica answered.
int RunHaStatus(const HaStatusOptions& options, std::ostream& out, std::ostream& err);

void AddHaCommand(CLI::App& admin, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_HA_STATUS_COMMAND_H_
