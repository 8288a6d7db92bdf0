#ifndef TASKBOARD_TOOLS_CLI_COMMAND_SET_H_
#define TASKBOARD_TOOLS_CLI_COMMAND_SET_H_

// How commands plug into the `taskboard` CLI. Each command file has an
// `Add<Name>Command(CLI::App&, CommandSet&)` that declares its subcommand and
// options and registers the action to run once parsing picked it; main only
// parses and calls RunParsed. Keeping the actions here, not in CLI11
// callbacks, lets one parse be tested without running anything.

#include <functional>
#include <ostream>
#include <vector>

#include "CLI/CLI.hpp"
#include "tools/cli/terminal.h"

namespace taskboard::cli {

// A command's action: writes to `out` / `err`, returns the exit code.
using CommandAction = std::function<int(std::ostream& out, std::ostream& err)>;

class CommandSet {
 public:
  // What standard output and standard error are (live views draw on the
  // latter, `show` renders on the former).
  CommandSet(TerminalInfo out, TerminalInfo err) : out_terminal_(out), err_terminal_(err) {}

  // Runs `action` when `command` (a leaf subcommand) was parsed.
  void Add(const CLI::App* command, CommandAction action);

  // The action of the parsed command; exit code 2 when none was chosen.
  int RunParsed(std::ostream& out, std::ostream& err) const;

  const TerminalInfo& out_terminal() const { return out_terminal_; }
  const TerminalInfo& err_terminal() const { return err_terminal_; }

 private:
  struct Entry {
    const CLI::App* command;
    CommandAction action;
  };
  TerminalInfo out_terminal_;
  TerminalInfo err_terminal_;
  std::vector<Entry> entries_;
};

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_COMMAND_SET_H_
