#include "tools/cli/resume_command.h"

#include <memory>

#include "absl/strings/str_join.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/rpc_call.h"

namespace taskboard::cli {
namespace {

constexpr absl::string_view kCommand = "taskboard resume";

}  // namespace

int RunResume(const ResumeOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  // The events of the earlier attempt stay in the log; follow only what the
  // resumed attempt adds.
  v1::GetRunRequest get;
  get.set_run_id(options.run_id);
  v1::GetRunResponse before;
  if (int code = CallScheduler(client, kCommand, &v1::Scheduler::Stub::GetRun, get, &before, err);
      code != 0) {
    return code;
  }
  if (before.run().status() == v1::RUN_STATUS_COMPLETED) {
    // Nothing to do is not an error: the run is where the user wants it.
    err << "run " << options.run_id
        << " already completed; nothing to resume (taskboard show " << options.run_id
        << " prints its result)\n";
    return 0;
  }
  v1::ResumeRunRequest request;
  request.set_run_id(options.run_id);
  v1::ResumeRunResponse response;
  if (int code =
          CallScheduler(client, kCommand, &v1::Scheduler::Stub::ResumeRun, request, &response, err);
      code != 0) {
    return code;
  }
  if (options.follow.json) {
    out << ProtoToJsonLine(response) << "\n";
  } else {
    err << "resumed run " << response.run_id() << "; ";
    const v1::FlowKind kind = before.run().kind();
    if (kind == v1::FLOW_KIND_PLAN_AND_EXECUTE || kind == v1::FLOW_KIND_SUPERVISOR) {
      // Pattern runs have no phases: they keep every task that completed.
      err << "its completed tasks are kept, the rest runs again\n";
    } else if (response.reused_phases().empty()) {
      err << "no phase reused\n";
    } else {
      err << "reused " << response.reused_phases_size()
          << (response.reused_phases_size() == 1 ? " phase: " : " phases: ")
          << absl::StrJoin(response.reused_phases(), ", ") << "\n";
    }
  }
  if (options.no_watch) return 0;
  FollowOptions follow = options.follow;
  follow.after_seq = before.run().last_seq();
  return FollowRun(client, kCommand, response.run_id(), follow, out, err);
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
  AddSchedulerOption(command, &options->scheduler);
  commands.Add(command, [options](std::ostream& out, std::ostream& err) {
    return RunResume(*options, out, err);
  });
}

}  // namespace taskboard::cli
