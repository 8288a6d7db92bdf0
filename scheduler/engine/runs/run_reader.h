#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_READER_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_READER_H_

// The read side of runs: assembles the public views (Run with its phases and
// tasks, Task with its execution record, the event log) from the store. Safe
// from any thread; each call sees committed batches only.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "scheduler/store/records.pb.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine {

// NOT_FOUND for `run_id`, naming the run and how to list runs.
absl::Status RunNotFoundError(absl::string_view run_id);

// The stored record of a run, without its phases (one key each; a board has
// one per task, so only callers that need them read them, with
// ReadRunPhases): NOT_FOUND (RunNotFoundError), DATA_LOSS when it cannot be
// decoded, or the store's error.
absl::StatusOr<store::RunRecord> ReadRunRecord(store::Store& store, const std::string& run_id);

// Appends the run's phase records (stored one key each) to `record`, with
// their map items when `with_items` (only the engine needs them; the public
// view shows the phases' statuses).
absl::Status ReadRunPhases(store::Store& store, store::RunRecord& record, bool with_items = true);

// The run with spec, phases and tasks. Without `with_tasks`, what GetRun's
// `without_tasks` asks for: no tasks and no phases for a board (one key per
// task either way), with the counts the run record keeps. NOT_FOUND names
// the run and how to list runs.
absl::StatusOr<v1::Run> ReadRun(store::Store& store, const std::string& run_id,
                                bool with_tasks = true);

// Newest first, filtered; page tokens are the last run id of the previous
// page. With `tenant`, only that tenant's runs; nullopt: every tenant's.
// INVALID_ARGUMENT for a page size over 500.
absl::StatusOr<v1::ListRunsResponse> ListRuns(store::Store& store,
                                              const v1::ListRunsRequest& request,
                                              const std::optional<std::string>& tenant = {});

// NOT_FOUND for an unknown run or task.
absl::StatusOr<v1::GetTaskResponse> ReadTask(store::Store& store, const std::string& run_id,
                                             const std::string& task_id);

// Fills `response` with the task's latest prior work and its tool calls
// from the request's ledger (in call order).
absl::Status ReadTaskToolWork(store::Store& store, const std::string& run_id,
                              const std::string& task_id, v1::GetTaskResponse& response);

// Calls `visit` for each stored event with seq > after_seq, in order, until
// it returns false.
absl::Status ReadEvents(store::Store& store, const std::string& run_id, int64_t after_seq,
                        const std::function<bool(v1::RunEvent&)>& visit);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_READER_H_
