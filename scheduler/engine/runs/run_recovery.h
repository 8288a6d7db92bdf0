#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_RECOVERY_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_RECOVERY_H_

// Taking the active runs back from the store when the scheduler starts:
// scans the run records, reads every unfinished run back on loader threads
// (run_loader.h) and activates each in scan order; a run that cannot be
// recovered is failed on its own ("unrecoverable: <reason>") so every other
// run goes on. The engine commits what this leaves in the batch.
//
// Loop thread (before the loop starts).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "scheduler/engine/runs/run_loader.h"
#include "scheduler/engine/runs/run_manager.h"

namespace taskboard::engine {

// How far the event numbers of an unfinished run skip ahead when the store
// may have lost its last writes: more than any run publishes between two
// commits that could be lost.
inline constexpr int64_t kSeqGapAfterLostWrites = 1'000'000;

// What recovery did, for the engine's log line.
struct RecoveredRuns {
  bool quarantined = false;  // some run was failed: its record must be committed
  size_t tasks = 0;          // tasks of the runs taken over
  absl::Time scanned;        // when the run records were scanned
  absl::Time loaded;         // when every run was loaded (or quarantined)
};

class RunRecovery {
 public:
  // `rearm` is called with each run taken over, once it is active and
  // before its tasks are frozen: its workers' leases and timers, its ready
  // queue entries. Everything outlives this.
  RunRecovery(RunManager* runs, LoopBatch* batch, int recovery_threads,
              std::function<void(ActiveRun&)> rearm)
      : runs_(runs), batch_(batch), recovery_threads_(recovery_threads), rearm_(std::move(rearm)) {}

  // A store read error of the scan as is; every other failure quarantines
  // the run it is about.
  absl::StatusOr<RecoveredRuns> Recover();

 private:
  // Takes over one active run a loader read back: its records, driver,
  // timers and leases. The loader's error (DATA_LOSS, or the store's) when
  // they could not be read back.
  absl::Status RecoverRun(LoadedRun loaded);
  // Fails a run that cannot be recovered with "unrecoverable: <reason>"
  // (event, log line, metric), committed by the engine.
  void Quarantine(const std::string& run_id, absl::string_view reason);
  // Start-up, when the marker says it was never done: adds the runs stored
  // before the run indexes existed (finished root runs by age, runs by
  // tenant) to them, and the marker.
  void BackfillRunIndexes(const std::vector<std::pair<std::string, int64_t>>& finished_roots,
                          const std::vector<std::pair<std::string, std::string>>& tenant_runs);

  RunManager* const runs_;
  LoopBatch* const batch_;
  const int recovery_threads_;
  const std::function<void(ActiveRun&)> rearm_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_RECOVERY_H_
