#ifndef TASKBOARD_WORKER_PROCESS_WORKER_FLAGS_H_
#define TASKBOARD_WORKER_PROCESS_WORKER_FLAGS_H_

// The command line of `taskboard-worker`: every flag, its TASKBOARD_*
// environment variable, its check and its help text, bound to a field of
// WorkerOptions (worker_options.h). deploy/test compares the flag names and
// variables with the Kubernetes manifests, so a renamed flag shows there.

#include <optional>

#include "worker/process/worker_options.h"

namespace CLI {
class App;
}  // namespace CLI

namespace taskboard::worker {

// Declares the worker's flags on `app`, in --help order, writing into
// `options` (which must outlive parsing). Also --version and
// --max-json-depth (which sets the process-wide limit as it parses).
void AddWorkerFlags(CLI::App& app, WorkerOptions& options);

// Parses argv into `options`. Empty when the worker should go on; else the
// exit code, after CLI11 printed what it had to: 0 for --help and --version,
// 2 for a usage error (an unknown flag, a value a check refused).
std::optional<int> ParseWorkerFlags(int argc, char** argv, WorkerOptions& options);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_PROCESS_WORKER_FLAGS_H_
