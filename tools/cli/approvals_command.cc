#include "tools/cli/approvals_command.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "tools/cli/display_format.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/rpc_call.h"
#include "tools/cli/text_table.h"

namespace taskboard::cli {
namespace {

// The first line of the prompt: the table has one row per approval.
std::string PromptLine(const std::string& prompt) {
  std::string line = prompt.substr(0, prompt.find('\n'));
  return line.size() > 80 ? line.substr(0, 79) + "…" : line;
}

}  // namespace

void PrintApprovalTable(const v1::ListApprovalsResponse& approvals, absl::Time now, int width,
                        std::ostream& out) {
  TextTable table({"RUN", "STEP", "WAITING", "DEADLINE", "FORM", "PROMPT"});
  for (const v1::PendingApproval& row : approvals.approvals()) {
    const v1::TaskApproval& approval = row.approval();
    const std::optional<absl::Time> since = TimeFromProto(approval.waiting_since());
    const std::optional<absl::Time> deadline = TimeFromProto(approval.deadline());
    std::vector<std::string> fields;
    for (const v1::ApprovalField& field : approval.form()) {
      fields.push_back(field.required() ? field.name() + "*" : field.name());
    }
    table.AddRow({row.run_id(), row.step_id(), since ? FormatAge(now - *since) : "-",
                  deadline ? absl::StrCat("in ", FormatAge(*deadline - now)) : "-",
                  fields.empty() ? "-" : absl::StrJoin(fields, ","),
                  PromptLine(approval.prompt())});
  }
  table.Print(out, width);
}

int RunListApprovals(const ApprovalsOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::ListApprovalsResponse response;
  if (int code = CallScheduler(client, "taskboard approvals", &v1::Scheduler::Stub::ListApprovals,
                               v1::ListApprovalsRequest(), &response, err);
      code != 0) {
    return code;
  }
  if (options.json) {
    out << ProtoToJsonPretty(response) << "\n";
  } else if (response.approvals().empty()) {
    err << "no approvals waiting\n";
  } else {
    PrintApprovalTable(response, absl::Now(), options.width, out);
  }
  return 0;
}

int RunDecideApproval(const ApprovalsOptions& options, const std::string& decision,
                      std::istream& in, std::ostream& out, std::ostream& err) {
  v1::DecideApprovalRequest request;
  request.set_run_id(options.run_id);
  request.set_step_id(options.step_id);
  request.set_decision(options.choice.empty() ? decision : "choice");
  request.set_choice(options.choice);
  request.set_comment(options.comment);
  for (const std::string& set : options.sets) {
    const size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
      err << "taskboard " << decision << ": --set takes NAME=VALUE (got '" << set << "')\n";
      return 2;
    }
    (*request.mutable_values())[set.substr(0, eq)] = set.substr(eq + 1);
  }
  if (!options.plan_file.empty()) {
    // The scheduler checks the plan as it checks a planner's (the CLI does
    // not know the run's other steps or its limits).
    std::string plan;
    if (options.plan_file == "-") {
      plan.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } else {
      std::ifstream file(options.plan_file, std::ios::binary);
      if (!file) {
        err << "taskboard " << decision << ": cannot read --plan file '" << options.plan_file
            << "'\n";
        return 2;
      }
      plan.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    }
    if (plan.find_first_not_of(" \t\r\n") == std::string::npos) {
      err << "taskboard " << decision << ": the --plan input is empty; give the edited plan JSON\n";
      return 2;
    }
    request.set_edited_plan(std::move(plan));
  }
  SchedulerClient client(options.scheduler);
  v1::DecideApprovalResponse response;
  if (int code = CallScheduler(client, absl::StrCat("taskboard ", decision),
                               &v1::Scheduler::Stub::DecideApproval, request, &response, err);
      code != 0) {
    return code;
  }
  const v1::ApprovalDecision& made = response.task().approval().decision();
  out << options.run_id << " " << options.step_id << ": " << made.decision() << " by "
      << made.decided_by() << (made.edited_plan().empty() ? "" : " (edited plan)") << "\n";
  return 0;
}

void AddApprovalsCommands(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<ApprovalsOptions>();
  options->width = commands.out_terminal().width;
  CLI::App* list = app.add_subcommand(
      "approvals", "List the approval steps waiting for a person, the oldest first");
  list->add_flag("--json", options->json, "Print the ListApprovals response as JSON");
  AddSchedulerOption(list, &options->scheduler);
  commands.Add(list, [options](std::ostream& out, std::ostream& err) {
    return RunListApprovals(*options, out, err);
  });
  for (const char* decision : {"approve", "reject"}) {
    const bool approve = std::string(decision) == "approve";
    CLI::App* command = app.add_subcommand(
        decision, approve ? "Approve a waiting approval step (see `taskboard approvals`)"
                          : "Reject a waiting approval step: the run ends blocked");
    command->add_option("run", options->run_id, "Run id")->required();
    command->add_option("step", options->step_id, "The approval phase's id")->required();
    command->add_option(
        "--comment", options->comment,
        approve ? "Why (stored with the decision)" : "Why (stored, and the run's blocked reason)");
    if (approve) {
      command->add_option("--set", options->sets, "A form value, NAME=VALUE (repeatable)");
      command->add_option("--choice", options->choice,
                          "Answer with one of the flow's extra choices instead of approve");
      command->add_option("--plan", options->plan_file,
                          "Plan approvals: approve this edited plan JSON instead (a file, or - "
                          "for stdin)");
    }
    AddSchedulerOption(command, &options->scheduler);
    commands.Add(command, [options, decision](std::ostream& out, std::ostream& err) {
      return RunDecideApproval(*options, decision, std::cin, out, err);
    });
  }
}

}  // namespace taskboard::cli
