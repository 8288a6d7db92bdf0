#ifndef TASKBOARD_TOOLS_CLI_HA_FAILOVER_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_HA_FAILOVER_COMMAND_H_

// Failing over by hand (docs/operations.md#failing-over-by-hand):
//
//   taskboard admin ha switchover [--to REPLICA] --scheduler a,b,c
//     finds the leader among the replicas named, checks that the target
//     (or, without --to, an in-sync follower it picks) answers and is in
//     sync, asks the leader to hand over, and waits until the target answers
//     as the leader; prints how long that took.
//   taskboard admin ha promote --force REPLICA --scheduler a,b,c
//     the last resort when no in-sync follower can take over: lets REPLICA
//     lead although it may lack acknowledged writes (recorded as
//     MayHaveLostWrites); without --force it refuses, saying what could be
//     lost.
//
// Exit codes: 0 done; 1 refused or failed (the message says why and what to
// do); 2 no replica answered.

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/time/time.h"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct SwitchoverOptions {
  std::string scheduler;
  std::string to;  // "": the leader picks an in-sync follower
  // How long to wait for the new leader to answer.
  absl::Duration wait = absl::Seconds(30);
};

struct PromoteOptions {
  std::string scheduler;
  std::string replica;
  bool force = false;
  absl::Duration wait = absl::Seconds(30);
};

int RunSwitchover(const SwitchoverOptions& options, std::ostream& out, std::ostream& err);
int RunPromote(const PromoteOptions& options, std::ostream& out, std::ostream& err);

// Adds `switchover` and `promote` under `taskboard admin ha`.
void AddHaFailoverCommands(CLI::App& ha, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_HA_FAILOVER_COMMAND_H_
