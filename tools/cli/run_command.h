#ifndef TASKBOARD_TOOLS_CLI_RUN_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_RUN_COMMAND_H_

// `taskboard run FILE|-|NAME [ARGS...]`: checks the flow and its args
// locally (for a file, nothing reaches the network when either is wrong; a
// saved flow NAME is fetched first, as pi-taskflow's `/tf:<name> args`),
// submits it, then follows the run live until it finishes and prints its
// output.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "tools/cli/command_set.h"
#include "tools/cli/run_follower.h"

namespace taskboard::cli {

// "cli-" and 32 random hex digits: the key a submit without one gets, so that
// retrying it on another replica (or after a connection error) finds the run
// the first attempt may have made instead of starting a second one
// (docs/operations.md#clients-and-replicated-schedulers).
std::string AutomaticIdempotencyKey();

struct RunFlowOptions {
  // A file ("-" reads standard input) or a saved flow's name (NamesFlowFile).
  std::string flow;
  // A JSON object, key=value pairs, or one value for the first declared arg
  // (flow::ParseCliArgs).
  std::vector<std::string> args;
  std::string session_id;
  std::vector<std::string> labels;  // key=value
  bool no_watch = false;            // print the run id and return
  // SubmitRun's idempotency key; empty: an automatic one
  // (AutomaticIdempotencyKey).
  std::string idempotency_key;
  // SubmitRun's run_timeout_seconds (0: none; docs/semantics.md#run-deadlines).
  int32_t run_timeout_seconds = 0;
  std::string scheduler;
  FollowOptions follow;
};

// Exit codes: 0 the run completed (or was submitted, with no_watch); 1 the
// flow is invalid, the scheduler rejected it, or the run did not complete;
// 2 unreadable file, bad args or labels, or no scheduler. An unknown saved
// flow name is 1, with the saved flows listed.
int RunFlow(const RunFlowOptions& options, std::ostream& out, std::ostream& err);

void AddRunCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_RUN_COMMAND_H_
