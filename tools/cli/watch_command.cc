#include "tools/cli/watch_command.h"

#include <memory>

namespace taskboard::cli {

int RunWatch(const WatchOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  return FollowRun(client, "taskboard watch", options.run_id, options.follow, out, err);
}

void AddWatchCommand(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<WatchOptions>();
  options->follow.terminal = commands.err_terminal();
  CLI::App* command = app.add_subcommand("watch", "Follow a run live until it finishes");
  command->add_option("run", options->run_id, "Run id")->required();
  command->add_flag("--json", options->follow.json,
                    "Print every run event as a JSON line, then the final run");
  AddSchedulerOption(command, &options->scheduler);
  commands.Add(command, [options](std::ostream& out, std::ostream& err) {
    return RunWatch(*options, out, err);
  });
}

}  // namespace taskboard::cli
