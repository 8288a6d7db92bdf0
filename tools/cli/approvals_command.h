#ifndef TASKBOARD_TOOLS_CLI_APPROVALS_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_APPROVALS_COMMAND_H_

// `taskboard approvals`: the approval steps waiting for a person, across the
// runs the caller may see, the oldest first; `taskboard approve RUN STEP` and
// `taskboard reject RUN STEP` answer one (docs/approvals.md).

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/time/time.h"
#include "taskboard/v1/scheduler.pb.h"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct ApprovalsOptions {
  std::string scheduler;
  bool json = false;
  int width = 0;
  // approve / reject.
  std::string run_id;
  std::string step_id;
  std::string comment;
  std::string choice;
  std::vector<std::string> sets;  // NAME=VALUE
  // approve --plan FILE ("-": stdin): an edited plan for a plan approval.
  std::string plan_file;
};

// Exit codes: 0 listed; 2 no scheduler.
int RunListApprovals(const ApprovalsOptions& options, std::ostream& out, std::ostream& err);
// `decision`: approve or reject. Exit codes: 0 decided; 1 refused (not an
// approver, decided already, a missing form value, unknown run or step);
// 2 usage (an unreadable --plan file) or no scheduler.
// `in`: where `--plan -` reads the plan from.
int RunDecideApproval(const ApprovalsOptions& options, const std::string& decision,
                      std::istream& in, std::ostream& out, std::ostream& err);

// The table `taskboard approvals` prints.
void PrintApprovalTable(const v1::ListApprovalsResponse& approvals, absl::Time now, int width,
                        std::ostream& out);

void AddApprovalsCommands(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_APPROVALS_COMMAND_H_
