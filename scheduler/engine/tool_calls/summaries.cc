#include "scheduler/engine/tool_calls/summaries.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/engine/core/ids.h"
#include "scheduler/policy/compaction.h"

namespace taskboard::engine {

bool Summaries::Park(ActiveRun& active, const std::string& task_id) {
  RunState& run = *active.state;
  const std::string parked_key = absl::StrCat(run.run_id(), "/", task_id);
  if (parked_once_.count(parked_key) > 0) return false;
  absl::StatusOr<policy::RequestLedger*> ledger = ledgers_->Get(run.root_run_id());
  if (!ledger.ok()) return false;
  const v1::CompactPolicy& compact = active.policy.compact();
  policy::CompactionPlan plan = policy::PlanCompaction(compact, **ledger);
  if (!plan.needs_summary()) return false;
  const std::string& request_id = run.root_run_id();
  policy::NarrativeCache& narratives = narratives_[request_id];
  if (narratives.Find(plan.watermark) != nullptr) return false;
  if (!streams_->registry().AnyOffers(compact.summarizer_agent())) {
    parked_once_[parked_key] =
        absl::StrCat("no worker offers summarizer agent '", compact.summarizer_agent(),
                     "'; older calls were left out");
    return false;
  }
  const std::string job_key = absl::StrCat(request_id, "@", plan.watermark);
  auto [job, created] = jobs_.try_emplace(job_key);
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
        static_cast<size_t>(std::max<int64_t>(0, options_.max_prompt_bytes)));
    job->second.prompt = std::move(prompt.text);
    job->second.watermark = prompt.covers;
    if (absl::Status read = (*ledger)->TakeReadError(); !read.ok()) {
      // The calls to summarize could not be read: the task goes on with
      // its verbatim window, saying why the older calls are missing.
      jobs_.erase(job);
      parked_once_[parked_key] =
          absl::StrCat("older calls could not be read to summarize: ", read.message());
      return false;
    }
    queued_.push_back(job_key);
  }
  job->second.parked.push_back({run.run_id(), task_id});
  return true;
}

void Summaries::Dispatch() {
  for (auto it = queued_.begin(); it != queued_.end();) {
    auto job = jobs_.find(*it);
    if (job == jobs_.end()) {
      it = queued_.erase(it);
      continue;
    }
    dispatch::ConnectedWorker* worker = streams_->registry().Pick(job->second.agent);
    if (worker == nullptr) {
      ++it;
      continue;
    }
    std::string lease_id = NewLeaseId(batch_->rng());
    leases_->Grant({lease_id, job->second.run_id, "", worker->worker_id, worker->identity,
                    worker->stream_id, batch_->now_ms() + options_.lease_timeout_ms});
    worker->credits--;
    leases_to_jobs_[lease_id] = job->first;
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
    streams_->SendTo(worker->stream_id, std::move(message));
    it = queued_.erase(it);
  }
}

bool Summaries::TakeLease(absl::string_view lease_id, std::string* job_key) {
  auto it = leases_to_jobs_.find(lease_id);
  if (it == leases_to_jobs_.end()) return false;
  *job_key = it->second;
  leases_to_jobs_.erase(it);
  return true;
}

void Summaries::OnResult(const v1::TaskResult& result) {
  std::string job;
  const bool known = TakeLease(result.lease_id(), &job);
  // Ended after it left leases_to_jobs_: OnLeaseLost sees no lost summarizer.
  leases_->End(result.lease_id());
  if (!known) return;
  if (result.success()) {
    Finish(job, result.output(), "");
  } else {
    Finish(job, std::nullopt,
           absl::StrCat("summarizer failed: ", result.error(), "; older calls were left out"));
  }
}

void Summaries::OnReturned(absl::string_view lease_id) {
  std::string job;
  const bool known = TakeLease(lease_id, &job);
  leases_->Drop(lease_id);
  if (known) queued_.push_back(job);
}

void Summaries::OnLeaseLost(absl::string_view lease_id) {
  if (std::string job; TakeLease(lease_id, &job)) {
    Finish(job, std::nullopt, "the summarizer's worker was lost; older calls were left out");
  }
}

void Summaries::Finish(const std::string& job_key, std::optional<std::string> narrative,
                       const std::string& failure) {
  auto job = jobs_.find(job_key);
  if (job == jobs_.end()) return;
  Job done = std::move(job->second);
  jobs_.erase(job);
  if (narrative.has_value()) narratives_[done.request_id].Put(done.watermark, *narrative);
  for (const policy::TaskKey& task : done.parked) {
    parked_once_[absl::StrCat(task.run_id, "/", task.task_id)] =
        narrative.has_value() ? "" : failure;
    ActiveRun* active = runs_->Find(task.run_id);
    if (active == nullptr) continue;
    // Parked while READY: queued again as the loop queues a changed task.
    RunState& run = *active->state;
    if (const store::TaskRecord* parked = run.FindTask(task.task_id); parked != nullptr) {
      dispatcher_->Queue(run, run.KeptTaskId(task.task_id), *parked);
    }
  }
}

v1::PriorWork Summaries::CompactPriorWork(ActiveRun& active, const policy::RequestLedger& ledger,
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
