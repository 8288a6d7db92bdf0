#ifndef TASKBOARD_TOOLS_CLI_FLOWS_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_FLOWS_COMMAND_H_

// `taskboard flows [save|list|show|delete]`: the scheduler's named, versioned
// flows (docs/semantics.md#saved-flows). Bare `flows` lists them like `flows list`, with
// each flow's args. `save` checks the file locally first, like `run`.

#include <cstdint>
#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/time/time.h"
#include "taskboard/v1/scheduler.pb.h"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct FlowsOptions {
  std::string path;     // save: flow file or -
  std::string name;     // show, delete
  int64_t version = 0;  // show: 0 = latest
  bool json = false;    // list, show: the API message as JSON
  std::string scheduler;
  int width = 0;  // of standard output; 0 = no limit
};

// Exit codes (all four): 0 done; 1 invalid flow, unknown name or version, or
// rejected; 2 unreadable file or no scheduler.
int RunFlowsSave(const FlowsOptions& options, std::ostream& out, std::ostream& err);
// The flow table, then each flow's declared args (name, required, default,
// description).
int RunFlowsList(const FlowsOptions& options, std::ostream& out, std::ostream& err);
// Prints the DSL text the flow was saved from (the desugared flow as JSON
// when it was saved as a proto), ready to be edited and saved again.
int RunFlowsShow(const FlowsOptions& options, std::ostream& out, std::ostream& err);
int RunFlowsDelete(const FlowsOptions& options, std::ostream& out, std::ostream& err);

// The table `flows list` prints, and the args listing after it (separate
// for tests).
void PrintFlowTable(const v1::ListFlowsResponse& flows, absl::Time now, int width,
                    std::ostream& out);
void PrintFlowArgs(const v1::ListFlowsResponse& flows, int width, std::ostream& out);

void AddFlowsCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_FLOWS_COMMAND_H_
