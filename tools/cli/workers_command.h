#ifndef TASKBOARD_TOOLS_CLI_WORKERS_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_WORKERS_COMMAND_H_

// `taskboard workers`: the workers connected to the scheduler (agents, free
// slots, running tasks, draining), and `taskboard workers drain ID`: ask one
// to stop taking work and leave once its tasks are finished or handed back,
// e.g. before taking its node down.

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/time/time.h"
#include "taskboard/v1/scheduler.pb.h"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct WorkersOptions {
  std::string scheduler;
  bool json = false;
  int width = 0;
  // `drain` only.
  std::string drain_worker_id;
  int grace_seconds = 30;
  std::string reason;
};

// Exit codes: 0 listed; 2 no scheduler.
int RunListWorkers(const WorkersOptions& options, std::ostream& out, std::ostream& err);
// Exit codes: 0 drain sent; 1 no such worker; 2 no scheduler.
int RunDrainWorker(const WorkersOptions& options, std::ostream& out, std::ostream& err);

// The table `taskboard workers` prints.
void PrintWorkerTable(const v1::ListWorkersResponse& workers, absl::Time now, int width,
                      std::ostream& out);

void AddWorkersCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_WORKERS_COMMAND_H_
