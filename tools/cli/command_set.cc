#include "tools/cli/command_set.h"

namespace taskboard::cli {

void CommandSet::Add(const CLI::App* command, CommandAction action) {
  entries_.push_back({command, std::move(action)});
}

int CommandSet::RunParsed(std::ostream& out, std::ostream& err) const {
  for (const Entry& entry : entries_) {
    if (entry.command->parsed()) return entry.action(out, err);
  }
  err << "taskboard: no command given (see taskboard --help)\n";
  return 2;
}

}  // namespace taskboard::cli
