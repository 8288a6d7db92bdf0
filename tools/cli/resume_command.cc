#include "tools/cli/resume_command.h"

#include <cmath>
#include <memory>

#include "absl/strings/str_join.h"
#include "scheduler/flow/kinds/flow_kind.h"
#include "tools/cli/display_format.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/rpc_call.h"
#include "tools/cli/run_billing.h"

namespace taskboard::cli {
namespace {

constexpr absl::string_view kResumeCommand = "taskboard resume";

// A budget of 0 would mean "no limit" to the scheduler: lifting a budget by
// accident is worse than a refused command, so only positive totals pass.
bool CheckBudgetFlags(const ResumeOptions& options, std::ostream& err) {
  if (options.budget_usd && !(std::isfinite(*options.budget_usd) && *options.budget_usd > 0)) {
    err << kResumeCommand << ": --budget-usd " << *options.budget_usd
        << " is not a budget: give the run's new total in dollars, above 0 and above what it "
           "billed (taskboard show "
        << options.run_id << ")\n";
    return false;
  }
  if (options.budget_tokens && *options.budget_tokens <= 0) {
    err << kResumeCommand << ": --budget-tokens " << *options.budget_tokens
        << " is not a budget: give the run's new total of input and output tokens, above 0 "
           "and above what it billed (taskboard show "
        << options.run_id << ")\n";
    return false;
  }
  return true;
}

// The budget once the request applies: the given totals over the old ones.
v1::RunBudget RaisedBudget(const v1::RunBudget& before, const ResumeOptions& options) {
  v1::RunBudget budget = before;
  if (options.budget_usd) budget.set_usd(*options.budget_usd);
  if (options.budget_tokens) budget.set_tokens(*options.budget_tokens);
  return budget;
}

}  // namespace

int RunResume(const ResumeOptions& options, std::ostream& out, std::ostream& err) {
  if (!CheckBudgetFlags(options, err)) return 2;
  SchedulerClient client(options.scheduler);
  // The events of the earlier attempt stay in the log; follow only what the
  // resumed attempt adds.
  v1::GetRunRequest get;
  get.set_run_id(options.run_id);
  // Its status, kind, budget and last seq are all this needs.
  get.set_without_tasks(true);
  v1::GetRunResponse before;
  if (int code =
          CallScheduler(client, kResumeCommand, &v1::Scheduler::Stub::GetRun, get, &before, err);
      code != 0) {
    return code;
  }
  if (before.run().status() == v1::RUN_STATUS_COMPLETED) {
    // Nothing to do is not an error: the run is where the user wants it.
    err << "run " << options.run_id << " already completed; nothing to resume (taskboard show "
        << options.run_id << " prints its result)\n";
    return 0;
  }
  v1::ResumeRunRequest request;
  request.set_run_id(options.run_id);
  if (options.budget_usd) request.set_budget_usd(*options.budget_usd);
  if (options.budget_tokens) request.set_budget_tokens(*options.budget_tokens);
  v1::ResumeRunResponse response;
  if (int code = CallScheduler(client, kResumeCommand, &v1::Scheduler::Stub::ResumeRun, request,
                               &response, err);
      code != 0) {
    return code;
  }
  if (options.follow.json) {
    out << ProtoToJsonLine(response) << "\n";
  } else {
    err << "resumed run " << response.run_id() << "; ";
    const flow::FlowKindInfo* kind = flow::FindFlowKind(before.run().kind());
    if (kind != nullptr && kind->is_pattern) {
      // Pattern runs have no phases: they keep every task that completed.
      err << "its completed tasks are kept, the rest runs again\n";
    } else if (response.reused_phases().empty()) {
      err << "no phase reused\n";
    } else {
      err << "reused " << response.reused_phases_size()
          << (response.reused_phases_size() == 1 ? " phase: " : " phases: ")
          << absl::StrJoin(response.reused_phases(), ", ") << "\n";
    }
    if (options.budget_usd || options.budget_tokens) {
      err << "budget now " << FormatBudget(RaisedBudget(before.run().budget(), options));
      if (std::string billed = FormatUsage(before.run().billed()); !billed.empty()) {
        err << "; billed so far " << billed;
      }
      err << "\n";
    }
  }
  if (options.no_watch) return 0;
  FollowOptions follow = options.follow;
  follow.after_seq = before.run().last_seq();
  return FollowRun(client, kResumeCommand, response.run_id(), follow, out, err);
}

void AddResumeCommand(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<ResumeOptions>();
  options->follow.terminal = commands.err_terminal();
  CLI::App* command = app.add_subcommand(
      "resume", "Resume a failed, blocked, cancelled or paused run and follow it");
  command->add_option("run", options->run_id, "Run id")->required();
  command->add_flag("--json", options->follow.json,
                    "Print the resume response and every event as JSON lines, then the final run");
  command->add_flag("--no-watch", options->no_watch, "Return once the run is resumed");
  // Callbacks rather than plain values: an absent flag must stay unset, and
  // 0 is a value to refuse, not "absent".
  command->add_option_function<double>(
      "--budget-usd", [options](const double& usd) { options->budget_usd = usd; },
      "Raise the run's budget to this many dollars in all (a run paused on its budget "
      "continues)");
  command->add_option_function<int64_t>(
      "--budget-tokens", [options](const int64_t& tokens) { options->budget_tokens = tokens; },
      "Raise the run's budget to this many input and output tokens in all");
  AddSchedulerOption(command, &options->scheduler);
  commands.Add(command, [options](std::ostream& out, std::ostream& err) {
    return RunResume(*options, out, err);
  });
}

}  // namespace taskboard::cli
