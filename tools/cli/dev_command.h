#ifndef TASKBOARD_TOOLS_CLI_DEV_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_DEV_COMMAND_H_

// `taskboard dev`: the embedded default. Starts a scheduler (RocksDB under a
// local data directory) and one worker on localhost as child processes, prints
// the address to use, and stops both on Ctrl-C (the worker drains first).

#include <string>

#include "CLI/CLI.hpp"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct DevOptions {
  std::string data_dir = ".taskboard";
  std::string listen = "127.0.0.1:7233";
  std::string agents_dir;  // default: ./agents when it exists
  int slots = 4;
  // Local development works on the checkout it runs in; empty: a fresh
  // directory per task under <data-dir>/worker, as a worker does by default.
  std::string workspace_root = ".";
  std::string durability = "sync";
  // Written with the scheduler address once both processes are up (scripts
  // wait for it instead of sleeping).
  std::string ready_file;
};

void AddDevCommand(CLI::App& app, CommandSet& commands);

// Runs until SIGINT/SIGTERM or until a child exits. Exit 0 after a clean
// stop; 1 when a process could not start (its log path is printed).
int RunDev(const DevOptions& options, std::ostream& out, std::ostream& err);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_DEV_COMMAND_H_
