#ifndef TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_SUMMARIES_H_
#define TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_SUMMARIES_H_

// The `compact` policy's summaries (docs/semantics.md#compact-summaries).
// Before a task of a compact run is dispatched, the observations older than
// its verbatim window must be folded into a narrative by a summarizer task
// on `summarizer_agent`:
//
//   task ready ──Park──> parked (READY, out of the ready queue)
//        │ narrative cached / nothing to summarize / parked once already
//        v
//   dispatched with ComposeCompact(window, narrative)
//
//   summary job (request, watermark) ──Dispatch──> summarizer lease
//        ──result──> NarrativeCache.Put, parked tasks re-queued
//        ──failure / lease lost──> parked tasks re-queued with the reason
//
// Every task of the request whose plan has the same watermark waits on one
// job. A task parks at most once: when it is queued again it gets the newest
// narrative there is (which may lag the ledger by the calls made while the
// summary was written), so a busy ledger cannot starve it. Jobs and
// narratives are derived data and live in memory only; after a restart the
// parked tasks are READY again and summarize anew.
//
// A summarizer's lease is the only lease without a task id; it leaves
// summary_leases_ and the lease table together.
//
// Loop thread only: nothing here takes a lock.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/runs/active_runs.h"
#include "scheduler/engine/tool_calls/ledger_book.h"
#include "scheduler/engine/workers/dispatcher.h"
#include "scheduler/engine/workers/lease_keeper.h"
#include "scheduler/engine/workers/worker_streams.h"
#include "scheduler/policy/narrative_cache.h"
#include "scheduler/policy/request_ledger.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::engine {

class Summaries {
 public:
  struct Options {
    int64_t lease_timeout_ms = 30'000;
    // A summarizer's prompt is bounded like any task text (--max-interpolated-bytes).
    int64_t max_prompt_bytes = 2 << 20;
  };
  // Everything outlives this.
  Summaries(Options options, LoopBatch* batch, ActiveRuns* runs, LedgerBook* ledgers,
            LeaseKeeper* leases, WorkerStreams* streams, Dispatcher* dispatcher)
      : options_(options),
        batch_(batch),
        runs_(runs),
        ledgers_(ledgers),
        leases_(leases),
        streams_(streams),
        dispatcher_(dispatcher) {}
  Summaries(const Summaries&) = delete;
  Summaries& operator=(const Summaries&) = delete;

  // True when `task_id` of a compact run must wait for a summary: it is
  // then parked on the job of its watermark (created when new) and the
  // caller leaves it out of the ready queue.
  bool Park(ActiveRun& active, const std::string& task_id);
  // Sends the jobs waiting for a worker, each to a worker offering its
  // summarizer agent with a credit, under a new lease without a task id.
  void Dispatch();
  // A summarizer's result: its lease ends (after it left the job, so
  // OnLeaseLost sees no lost summarizer) and the job is finished with the
  // narrative, or with the failure.
  void OnResult(const v1::TaskResult& result);
  // A summarizer handed its job back: the lease is dropped without ending
  // (nothing of it was lost) and the job waits for another worker.
  void OnReturned(absl::string_view lease_id);
  // A lease ended; if a summarizer held it, its job finishes without a
  // narrative and the parked tasks go on, saying why.
  void OnLeaseLost(absl::string_view lease_id);
  // The prior work of `task_id` in a compact run: the verbatim window and
  // the newest narrative there is, with the reason it waited in vain.
  v1::PriorWork CompactPriorWork(ActiveRun& active, const policy::RequestLedger& ledger,
                                 const std::string& task_id);

  // Jobs not finished yet (tests).
  size_t jobs() const { return jobs_.size(); }

 private:
  struct Job {
    std::string request_id;
    std::string run_id;  // whose context the summarizer runs in
    int64_t watermark = 0;
    std::string agent;
    std::string prompt;
    std::vector<policy::TaskKey> parked;  // tasks waiting for the narrative
  };
  // Whether `lease_id` runs a summarizer; if so forgets it and names its job.
  bool TakeLease(absl::string_view lease_id, std::string* job_key);
  // Stores the narrative (nullopt: the summarizer failed with `failure`)
  // and queues the parked tasks again.
  void Finish(const std::string& job_key, std::optional<std::string> narrative,
              const std::string& failure);

  const Options options_;
  LoopBatch* const batch_;
  ActiveRuns* const runs_;
  LedgerBook* const ledgers_;
  LeaseKeeper* const leases_;
  WorkerStreams* const streams_;
  Dispatcher* const dispatcher_;
  absl::flat_hash_map<std::string, Job> jobs_;                    // "request@watermark"
  std::vector<std::string> queued_;                               // jobs without a worker yet
  absl::flat_hash_map<std::string, std::string> leases_to_jobs_;  // lease -> job
  absl::flat_hash_map<std::string, policy::NarrativeCache> narratives_;  // by request
  // "run/task" of tasks that waited for a summary once -> why it failed ("").
  absl::flat_hash_map<std::string, std::string> parked_once_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_SUMMARIES_H_
