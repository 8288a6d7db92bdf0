#ifndef TASKBOARD_SCHEDULER_PROCESS_SCHEDULER_FLAGS_H_
#define TASKBOARD_SCHEDULER_PROCESS_SCHEDULER_FLAGS_H_

// The command line of `taskboard-scheduler`: every flag, its TASKBOARD_*
// environment variable, its check and its help text, bound to a field of
// SchedulerOptions (scheduler_options.h). docs/services.md lists them;
// deploy/test compares the flag names and variables with the Kubernetes
// manifests, so a renamed flag shows there.

#include <optional>

#include "scheduler/process/scheduler_options.h"

namespace CLI {
class App;
}  // namespace CLI

namespace taskboard::process {

// Declares the scheduler's flags on `app`, in --help order, writing into
// `options` (which must outlive parsing). Also --version and
// --max-json-depth (which sets the process-wide limit as it parses).
void AddSchedulerFlags(CLI::App& app, SchedulerOptions& options);

// Parses argv into `options`. Empty when the scheduler should go on; else
// the exit code, after CLI11 printed what it had to: 0 for --help and
// --version, 2 for a usage error (an unknown flag, a value a check refused,
// such as --durability fast or --cache-max-ttl 0).
std::optional<int> ParseSchedulerFlags(int argc, char** argv, SchedulerOptions& options);

}  // namespace taskboard::process

#endif  // TASKBOARD_SCHEDULER_PROCESS_SCHEDULER_FLAGS_H_
