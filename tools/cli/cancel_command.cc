#include "tools/cli/cancel_command.h"

#include <memory>

#include "tools/cli/rpc_call.h"
#include "tools/cli/run_states.h"

namespace taskboard::cli {

int RunCancel(const CancelOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::CancelRunRequest request;
  request.set_run_id(options.run_id);
  request.set_reason(options.reason);
  v1::CancelRunResponse response;
  if (int code = CallScheduler(client, "taskboard cancel", &v1::Scheduler::Stub::CancelRun, request,
                               &response, err);
      code != 0) {
    return code;
  }
  out << "run " << options.run_id << ": " << RunStatusName(response.status()) << "\n";
  return 0;
}

void AddCancelCommand(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<CancelOptions>();
  CLI::App* command = app.add_subcommand("cancel", "Cancel a run");
  command->add_option("run", options->run_id, "Run id")->required();
  command->add_option("--reason", options->reason, "Why (recorded with the run)");
  AddSchedulerOption(command, &options->scheduler);
  commands.Add(command, [options](std::ostream& out, std::ostream& err) {
    return RunCancel(*options, out, err);
  });
}

}  // namespace taskboard::cli
