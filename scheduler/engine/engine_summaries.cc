// Engine: the `compact` policy's summaries (docs/semantics.md#compact-summaries). Before a task of
// a compact run is dispatched, the observations older than its verbatim
// window must be folded into a narrative by a summarizer task on
// `summarizer_agent`:
//
//   task ready ──ParkForSummary──> parked (READY, out of the ready queue)
//        │ narrative cached / nothing to summarize / parked once already
//        v
//   dispatched with ComposeCompact(window, narrative)
//
//   summary job (request, watermark) ──DispatchSummaries──> summarizer lease
//        ──result──> NarrativeCache.Put, parked tasks re-queued
//        ──failure / lease lost──> parked tasks re-queued with the reason
//
// Every task of the request whose plan has the same watermark waits on one
// job. A task parks at most once: when it is queued again it gets the newest
// narrative there is (which may lag the ledger by the calls made while the
// summary was written), so a busy ledger cannot starve it. Jobs and
// narratives are derived data and live in memory only; after a restart the
// parked tasks are READY again and summarize anew.

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/engine/engine.h"
#include "scheduler/engine/ids.h"
#include "scheduler/policy/compaction.h"

namespace taskboard::engine {

bool Engine::ParkForSummary(ActiveRun& active, const std::string& task_id) {
  RunState& run = *active.state;
  const std::string parked_key = absl::StrCat(run.run_id(), "/", task_id);
  if (parked_once_.count(parked_key) > 0) return false;
  absl::StatusOr<policy::RequestLedger*> ledger = tool_calls_.ledgers().Get(run.root_run_id());
  if (!ledger.ok()) return false;
  const v1::CompactPolicy& compact = active.policy.compact();
  policy::CompactionPlan plan = policy::PlanCompaction(compact, **ledger);
  if (!plan.needs_summary()) return false;
  const std::string& request_id = run.root_run_id();
  policy::NarrativeCache& narratives = narratives_[request_id];
  if (narratives.Find(plan.watermark) != nullptr) return false;
  if (!workers_.streams().registry().AnyOffers(compact.summarizer_agent())) {
    parked_once_[parked_key] =
        absl::StrCat("no worker offers summarizer agent '", compact.summarizer_agent(),
                     "'; older calls were left out");
    return false;
  }
  const std::string job_key = absl::StrCat(request_id, "@", plan.watermark);
  auto [job, created] = summary_jobs_.try_emplace(job_key);
  if (created) {
    std::optional<policy::NarrativeCache::Narrative> previous = narratives.Latest(plan.watermark);
    policy::CompactionPlan extending =
        policy::PlanCompaction(compact, **ledger, previous ? previous->watermark : 0);
    job->second.request_id = request_id;
    job->second.run_id = run.run_id();
    job->second.agent = compact.summarizer_agent();
    (*ledger)->TakeReadError().IgnoreError();
    // Bounded like any task text; what does not fit is left to the next
    // summary, which extends this one (docs/policies.md#compact-summaries).
    policy::SummaryPrompt prompt = policy::SummarizerPrompt(
        **ledger, extending, previous ? previous->text : "",
        static_cast<size_t>(std::max<int64_t>(0, options_.limits.max_interpolated_bytes)));
    job->second.prompt = std::move(prompt.text);
    job->second.watermark = prompt.covers;
    if (absl::Status read = (*ledger)->TakeReadError(); !read.ok()) {
      // The calls to summarize could not be read: the task goes on with
      // its verbatim window, saying why the older calls are missing.
      summary_jobs_.erase(job);
      parked_once_[parked_key] =
          absl::StrCat("older calls could not be read to summarize: ", read.message());
      return false;
    }
    queued_summaries_.push_back(job_key);
  }
  job->second.parked.push_back({run.run_id(), task_id});
  return true;
}

void Engine::DispatchSummaries() {
  for (auto it = queued_summaries_.begin(); it != queued_summaries_.end();) {
    auto job = summary_jobs_.find(*it);
    if (job == summary_jobs_.end()) {
      it = queued_summaries_.erase(it);
      continue;
    }
    dispatch::ConnectedWorker* worker = workers_.streams().registry().Pick(job->second.agent);
    if (worker == nullptr) {
      ++it;
      continue;
    }
    std::string lease_id = NewLeaseId(batch_.rng());
    workers_.leases().Grant({lease_id, job->second.run_id, "", worker->worker_id, worker->identity,
                             worker->stream_id, batch_.now_ms() + options_.lease_timeout_ms});
    worker->credits--;
    summary_leases_[lease_id] = job->first;
    v1::ConnectResponse message;
    v1::Assignment& assignment = *message.mutable_assignment();
    assignment.set_task_id(absl::StrCat("summary@", job->second.watermark));
    assignment.set_run_id(job->second.run_id);
    assignment.set_root_run_id(job->second.request_id);
    assignment.set_attempt(1);
    assignment.set_lease_id(lease_id);
    assignment.set_agent(job->second.agent);
    assignment.set_prompt(job->second.prompt);
    assignment.set_role("summarizer");
    workers_.streams().SendTo(worker->stream_id, std::move(message));
    it = queued_summaries_.erase(it);
  }
}

bool Engine::TakeSummaryLease(absl::string_view lease_id, std::string* job_key) {
  auto it = summary_leases_.find(lease_id);
  if (it == summary_leases_.end()) return false;
  *job_key = it->second;
  summary_leases_.erase(it);
  return true;
}

void Engine::OnSummaryResult(const v1::TaskResult& result) {
  std::string job;
  const bool known = TakeSummaryLease(result.lease_id(), &job);
  // Ended after it left summary_leases_: OnLeaseEnded sees no lost summarizer.
  workers_.leases().End(result.lease_id());
  if (!known) return;
  if (result.success()) {
    FinishSummary(job, result.output(), "");
  } else {
    FinishSummary(
        job, std::nullopt,
        absl::StrCat("summarizer failed: ", result.error(), "; older calls were left out"));
  }
}

void Engine::OnSummaryReturned(absl::string_view lease_id) {
  std::string job;
  const bool known = TakeSummaryLease(lease_id, &job);
  workers_.leases().Drop(lease_id);
  if (known) queued_summaries_.push_back(job);
}

void Engine::FinishSummary(const std::string& job_key, std::optional<std::string> narrative,
                           const std::string& failure) {
  auto job = summary_jobs_.find(job_key);
  if (job == summary_jobs_.end()) return;
  SummaryJob done = std::move(job->second);
  summary_jobs_.erase(job);
  if (narrative.has_value()) narratives_[done.request_id].Put(done.watermark, *narrative);
  for (const policy::TaskKey& task : done.parked) {
    parked_once_[absl::StrCat(task.run_id, "/", task.task_id)] =
        narrative.has_value() ? "" : failure;
    ActiveRun* active = runs_.active().Find(task.run_id);
    if (active == nullptr) continue;
    RunState::TaskIds ids = {task.task_id};
    QueueReadyTasks(*active->state, &ids);
  }
}

v1::PriorWork Engine::CompactPriorWork(ActiveRun& active, const policy::RequestLedger& ledger,
                                       const std::string& task_id) {
  RunState& run = *active.state;
  const v1::CompactPolicy& compact = active.policy.compact();
  policy::CompactionPlan plan = policy::PlanCompaction(compact, ledger);
  std::string narrative;
  std::string reason;
  if (auto parked = parked_once_.find(absl::StrCat(run.run_id(), "/", task_id));
      parked != parked_once_.end()) {
    reason = parked->second;
    parked_once_.erase(parked);
  }
  if (plan.needs_summary()) {
    const policy::NarrativeCache& narratives = narratives_[run.root_run_id()];
    if (const std::string* exact = narratives.Find(plan.watermark)) {
      narrative = *exact;
    } else if (auto latest = narratives.Latest(plan.watermark)) {
      narrative = latest->text;
    }
  }
  v1::PriorWork prior_work = policy::ComposeCompact(
      compact, policy::PolicyInput{ledger, *active.graph, {run.run_id(), task_id}}, narrative);
  if (!reason.empty()) prior_work.mutable_meta()->set_fallback_reason(reason);
  return prior_work;
}

}  // namespace taskboard::engine
