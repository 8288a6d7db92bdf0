#ifndef TASKBOARD_SCHEDULER_ENGINE_SCHEDULES_SCHEDULES_H_
#define TASKBOARD_SCHEDULER_ENGINE_SCHEDULES_SCHEDULES_H_

// The schedules of every tenant, on the engine's loop (docs/schedules.md):
// each batch, Tick plans the fires that came due (schedules/fire_plan.h)
// and applies the plan: it starts a run per fire with the fire's
// idempotency key and writes the schedule's new state into the SAME batch as
// those runs (docs/schedules.md#exactly-once). So a scheduler killed at any
// point has either written a fire's run and the schedule's progress past it,
// or neither, and plans the fire again after the restart with the same key;
// and a fire time whose run exists is never started twice, even from a
// backfill.
//
// The clock is the batch's (LoopBatch::now), which the engine reads from its
// injected Clock: tests move a FakeClock across DST changes and downtimes.
//
// Loop thread only. Every operation answers at once; the engine replies to
// callers after the batch that holds its writes.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/dispatch/worker_registry.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/runs/run_manager.h"
#include "scheduler/engine/schedules/schedule_metrics.h"
#include "scheduler/engine/schedules/schedule_run_source.h"
#include "scheduler/schedules/fire_plan.h"
#include "scheduler/schedules/schedule_decoder.h"
#include "scheduler/store/records.pb.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/schedules.pb.h"

namespace taskboard::engine {

class Schedules {
 public:
  struct Options {
    store::Store* store = nullptr;            // the loop's view of the store
    ScheduleRunSource* run_source = nullptr;  // null: schedules cannot be created
    ScheduleMetrics* metrics = nullptr;       // may be null
    // A tenant's schedules (--schedules-max-per-tenant).
    int64_t max_per_tenant = 1'000;
  };
  // Everything outlives this; `workers` is the registry the default agent
  // is chosen from (as for SubmitRun).
  Schedules(Options options, LoopBatch* batch, RunManager* runs,
            const dispatch::WorkerRegistry* workers);
  Schedules(const Schedules&) = delete;
  Schedules& operator=(const Schedules&) = delete;

  // Reads every schedule back (recovery). A record whose file no longer
  // decodes (a newer scheduler wrote it) is kept on disk and skipped, with a
  // log line. The store's read error as is.
  absl::Status Load();

  // Plans and applies what is due by the batch's time.
  void Tick();
  // When Tick has something to do next (Unix ms); INT64_MAX: nothing.
  int64_t NextWakeMs() const { return next_wake_ms_; }

  // CreateSchedule: INVALID_ARGUMENT (every problem of the file),
  // ALREADY_EXISTS, NOT_FOUND (the saved flow), RESOURCE_EXHAUSTED (over
  // max_per_tenant), FAILED_PRECONDITION without a run source.
  absl::StatusOr<v1::Schedule> Create(const std::string& tenant, const std::string& source);
  // The file names the schedule; NOT_FOUND for an unknown one. Its state
  // (pause, buffer, history) stays.
  absl::StatusOr<v1::Schedule> Update(const std::string& tenant, const std::string& source);
  // Waiting fires are dropped; runs it started go on. NOT_FOUND.
  absl::Status Delete(const std::string& tenant, const std::string& name);
  // Fires due before the call are decided first, under the old setting.
  absl::StatusOr<v1::Schedule> SetPaused(const std::string& tenant, const std::string& name,
                                         bool paused, const std::string& note);
  // `overlap` "" = the schedule's; INVALID_ARGUMENT for an unknown policy.
  absl::StatusOr<v1::ScheduleAction> Trigger(const std::string& tenant, const std::string& name,
                                             const std::string& overlap);
  // INVALID_ARGUMENT for an empty range or one past kMaxBackfillFires.
  absl::StatusOr<std::vector<v1::ScheduleAction>> Backfill(const std::string& tenant,
                                                           const std::string& name,
                                                           absl::Time start, absl::Time end,
                                                           const std::string& overlap);
  absl::StatusOr<v1::Schedule> Describe(const std::string& tenant, const std::string& name);
  std::vector<v1::Schedule> List(const std::string& tenant);

  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    store::ScheduleRecord record;
    schedules::ScheduleDefinition definition;
    // When the next fire not yet decided is due; nullopt: the spec ended.
    std::optional<absl::Time> next_due;
    bool more = false;  // the last plan stopped at its bound
  };
  using Key = std::pair<std::string, std::string>;  // tenant, name

  absl::StatusOr<Entry*> Find(const std::string& tenant, const std::string& name);
  // Drops the running runs that ended; true when one did.
  bool ForgetEndedRuns(Entry& entry);
  // Plans the fires due now and applies the plan.
  void PlanDue(Entry& entry);
  // Starts, records and cancels what `plan` says; returns the actions.
  std::vector<store::ScheduleActionRecord> Apply(Entry& entry, const schedules::FirePlan& plan,
                                                 const std::string& manual);
  // Starts the run of one fire: `action` gets its run id or the error.
  void StartFire(Entry& entry, const schedules::PendingFire& pending, const std::string& manual,
                 store::ScheduleActionRecord& action, schedules::ScheduleState& state);
  // Writes the entry's record into the batch.
  void Write(const Entry& entry);
  void Recompute(Entry& entry);
  void UpdateWake();
  v1::Schedule View(const Entry& entry, bool details);
  v1::ScheduleAction ActionView(const store::ScheduleActionRecord& action);

  const Options options_;
  LoopBatch* const batch_;
  RunManager* const runs_;
  const dispatch::WorkerRegistry* const workers_;
  std::map<Key, Entry> entries_;
  int64_t next_wake_ms_ = INT64_MAX;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_SCHEDULES_SCHEDULES_H_
