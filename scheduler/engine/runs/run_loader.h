#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_LOADER_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_LOADER_H_

// Reading active runs back from the store when the scheduler starts, on
// loader threads, so that a restart with a million task records does not
// read, parse and index them one after another on the thread that recovers.
//
// A loaded run is self-contained (its RunState, flow spec and driver); the
// loaders touch nothing of the engine, which takes the runs in the order it
// asked for them and installs each into its own state on its own thread
// (leases, timers, the ready queue), so the engine's single-writer rule
// holds and recovery's outcome (ready queue order included) does not depend
// on which loader finished first.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/engine/drivers/driver.h"
#include "scheduler/engine/state/run_limits.h"
#include "scheduler/engine/state/run_state.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::engine {

// The run's record, phases and tasks, read in one pass each. NOT_FOUND
// (RunNotFoundError), DATA_LOSS naming the record that does not decode, or
// the store's error.
absl::StatusOr<std::unique_ptr<RunState>> ReadRunState(store::Store& store,
                                                       const std::string& run_id);

// The flow spec the run was submitted with; DATA_LOSS when it is missing or
// does not decode.
absl::StatusOr<v1::FlowSpec> ReadRunSpec(store::Store& store, const std::string& run_id);

// One run as a loader read it back: everything the engine needs to take it
// over, or why it cannot be recovered.
struct LoadedRun {
  std::string run_id;
  absl::Status status;  // not OK: state, spec and driver are unset
  std::unique_ptr<RunState> state;
  v1::FlowSpec spec;
  std::unique_ptr<Driver> driver;
};

// Loads `run_ids` on `threads` loader threads and hands them out in order.
// At most a few runs per thread wait loaded ahead of the caller, so memory
// does not hold two copies of the state while the caller catches up.
class RunLoader {
 public:
  struct Options {
    store::Store* store = nullptr;  // required; safe for concurrent reads
    RunLimits limits;
    int threads = 2;  // at least 1
  };
  RunLoader(Options options, std::vector<std::string> run_ids);
  // Stops the loaders (after the run each is loading) and joins them.
  ~RunLoader();
  RunLoader(const RunLoader&) = delete;
  RunLoader& operator=(const RunLoader&) = delete;

  // The next run in the order given, once loaded; nullopt after the last.
  // Called from one thread.
  std::optional<LoadedRun> Next();

 private:
  void Work();
  LoadedRun Load(const std::string& run_id) const;

  const Options options_;
  const std::vector<std::string> run_ids_;
  const size_t window_;  // runs loaded ahead of the caller, at most

  absl::Mutex mu_;
  size_t claimed_ ABSL_GUARDED_BY(mu_) = 0;   // runs a loader has taken
  size_t consumed_ ABSL_GUARDED_BY(mu_) = 0;  // runs handed to the caller
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Signalled when a run is loaded or handed out, and on stopping.
  absl::CondVar changed_;
  // Loaded and not yet handed out, by index into run_ids_.
  std::vector<std::optional<LoadedRun>> loaded_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> threads_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_LOADER_H_
