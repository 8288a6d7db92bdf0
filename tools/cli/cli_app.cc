#include "tools/cli/cli_app.h"

#include <algorithm>

#include "CLI/CLI.hpp"
#include "common/json_depth_flag.h"
#include "tools/cli/admin_command.h"
#include "tools/cli/approvals_command.h"
#include "tools/cli/audit_command.h"
#include "tools/cli/cache_command.h"
#include "tools/cli/cancel_command.h"
#include "tools/cli/command_set.h"
#include "tools/cli/dev_command.h"
#include "tools/cli/flows_command.h"
#include "tools/cli/mcp_command.h"
#include "tools/cli/resume_command.h"
#include "tools/cli/run_command.h"
#include "tools/cli/runs_command.h"
#include "tools/cli/schedules_command.h"
#include "tools/cli/show_command.h"
#include "tools/cli/state_command.h"
#include "tools/cli/tool_command.h"
#include "tools/cli/triggers_command.h"
#include "tools/cli/usage_command.h"
#include "tools/cli/validate_command.h"
#include "tools/cli/watch_command.h"
#include "tools/cli/workers_command.h"

namespace taskboard::cli {

int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
           const TerminalInfo& out_terminal, const TerminalInfo& err_terminal) {
  CLI::App app{"taskboard: run and inspect Taskboard flows"};
  app.name("taskboard");
  app.require_subcommand(1);
  app.set_version_flag("--version", "taskboard 0.1.0");
  // Before the command: `taskboard --max-json-depth 128 run deep.yaml`.
  AddJsonDepthFlag(app);

  CommandSet commands(out_terminal, err_terminal);
  AddValidateCommand(app, commands);
  AddDevCommand(app, commands);
  AddRunCommand(app, commands);
  AddWatchCommand(app, commands);
  AddShowCommand(app, commands);
  AddRunsCommand(app, commands);
  AddCancelCommand(app, commands);
  AddResumeCommand(app, commands);
  AddFlowsCommand(app, commands);
  AddSchedulesCommand(app, commands);
  AddTriggersCommand(app, commands);
  AddToolCommand(app, commands);
  AddStateCommand(app, commands);
  AddWorkersCommand(app, commands);
  AddUsageCommand(app, commands);
  AddAuditCommand(app, commands);
  AddCacheCommand(app, commands);
  AddApprovalsCommands(app, commands);
  AddMcpCommand(app, commands);
  AddAdminCommand(app, commands);
  // Set last: subcommands copy the footer of their parent when added.
  app.footer(
      "Client commands talk to the scheduler at --scheduler (env TASKBOARD_SCHEDULER, default "
      "127.0.0.1:7233).\nExit codes: 0 success (run completed), 1 invalid flow / rejected / run "
      "did not complete, 2 usage or connection error.");

  // CLI11 would call a mistyped command "A subcommand is required".
  if (!args.empty() && !args[0].empty() && args[0][0] != '-') {
    const std::vector<CLI::App*> known =
        app.get_subcommands([&args](CLI::App* command) { return command->get_name() == args[0]; });
    if (known.empty()) {
      err << "taskboard: unknown command '" << args[0] << "' (see taskboard --help)\n";
      return 2;
    }
  }
  // CLI11 consumes arguments from the back of the vector.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    // --help/--version exit 0; usage errors exit 2 like an unreadable file.
    return app.exit(e, out, err) == 0 ? 0 : 2;
  }
  return commands.RunParsed(out, err);
}

}  // namespace taskboard::cli
