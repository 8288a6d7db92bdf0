#include "worker/session/llm_grants.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/log/log.h"

namespace taskboard::worker {
namespace {

// Reports kept for the next stream beyond this are dropped (oldest first):
// a worker cut off that long has lost its leases, and the scheduler its
// reservations with them.
constexpr size_t kMaxKeptReports = 10'000;
// Requests given up while waiting, remembered so that a late grant can be
// released; beyond this they are not (the lease's end releases them).
constexpr size_t kMaxAbandoned = 10'000;

std::string NewRequestPrefix() {
  absl::BitGen random;
  return absl::StrFormat("lg-%08x", absl::Uniform<uint32_t>(random));
}

absl::Status Cancelled(const CancelToken& cancel) {
  const std::string reason = cancel.reason();
  return absl::CancelledError(
      absl::StrCat("cancelled: ", reason.empty() ? "no reason given" : reason));
}

absl::Status OutOfTime() {
  return absl::DeadlineExceededError(
      "the task's time ran out while waiting for the scheduler's grant to call the model");
}

v1::ConnectRequest GrantRequest(const std::string& request_id, const LlmTask& task,
                                const LlmCallPlan& plan) {
  v1::ConnectRequest message;
  v1::LlmGrantRequest& request = *message.mutable_llm_grant_request();
  request.set_request_id(request_id);
  request.set_task_id(task.task_id);
  request.set_lease_id(task.lease_id);
  request.set_model(plan.model);
  request.set_estimated_input_tokens(plan.estimated_input_tokens);
  request.set_max_output_tokens(plan.max_output_tokens);
  return message;
}

v1::ConnectRequest CallReport(const LlmTask& task, const std::string& grant_id,
                              const std::string& model, const LlmCallEnd& end) {
  v1::ConnectRequest message;
  v1::LlmCallReport& report = *message.mutable_llm_call_report();
  report.set_grant_id(grant_id);
  report.set_task_id(task.task_id);
  report.set_lease_id(task.lease_id);
  report.set_run_id(task.run_id);
  report.set_model(model);
  report.set_http_status(end.http_status);
  report.set_retry_after_ms(std::max<int64_t>(0, absl::ToInt64Milliseconds(end.retry_after)));
  report.set_input_tokens(end.input_tokens);
  report.set_output_tokens(end.output_tokens);
  report.set_cached_tokens(end.cached_tokens);
  report.set_cost_usd(end.cost_usd);
  return message;
}

}  // namespace

LlmGrants::LlmGrants(LlmGrantLink& link, LlmGrantsOptions options)
    : link_(link), options_(options), request_prefix_(NewRequestPrefix()) {
  absl::MutexLock lock(&mu_);
  down_since_ = absl::Now();
}

std::string LlmGrants::NextRequestIdLocked() {
  return absl::StrCat(request_prefix_, "-", ++next_request_);
}

void LlmGrants::Observe(GrantWaitOutcome outcome, absl::Time start) const {
  if (options_.metrics != nullptr) options_.metrics->LlmGrantWaited(outcome, absl::Now() - start);
}

absl::StatusOr<std::string> LlmGrants::Acquire(const LlmTask& task, const LlmCallPlan& plan,
                                               const CancelToken* cancel, absl::Time deadline) {
  const absl::Time start = absl::Now();
  v1::ConnectRequest message;
  {
    absl::MutexLock lock(&mu_);
    // One id for every stream it is sent on: the scheduler of a lost stream
    // answers nothing more, so an answer can only be to the latest send.
    message = GrantRequest(NextRequestIdLocked(), task, plan);
  }
  const std::string& request_id = message.llm_grant_request().request_id();
  uint64_t sent_on = 0;  // the stream it was last sent on (0: none yet)
  while (true) {
    auto pending = std::make_shared<Pending>();
    {
      absl::MutexLock lock(&mu_);
      // A stream past its Welcome that the request was not sent on yet.
      while (!up_ || stream_ == sent_on) {
        if (cancel != nullptr && cancel->cancelled()) {
          Observe(GrantWaitOutcome::kAbandoned, start);
          return Cancelled(*cancel);
        }
        const absl::Time now = absl::Now();
        if (now >= deadline) {
          Observe(GrantWaitOutcome::kAbandoned, start);
          return OutOfTime();
        }
        const absl::Time give_up = down_since_ + options_.reconnect_wait;
        if (now >= give_up) {
          // Unreachable is not a refusal: the call goes ahead, and its
          // report bills it once a governing scheduler is back.
          log::Warn("calling the model without the scheduler's grant")
              .With("task_id", task.task_id)
              .With("model", plan.model)
              .With("reason", absl::StrCat("not connected to the scheduler for ",
                                           absl::FormatDuration(options_.reconnect_wait)));
          Observe(GrantWaitOutcome::kUnreachable, start);
          return std::string();
        }
        changed_.WaitWithDeadline(&mu_, std::min({deadline, give_up, now + options_.cancel_poll}));
      }
      if (!governs_) return std::string();  // an older scheduler: ungoverned
      sent_on = stream_;
      pending_[request_id] = pending;
    }
    if (!link_.Send(message)) {
      // The stream ended under us; the next one gets it.
      absl::MutexLock lock(&mu_);
      pending_.erase(request_id);
      continue;
    }
    v1::LlmGrant grant;
    {
      absl::MutexLock lock(&mu_);
      while (!pending->done) {
        const bool cancelled = cancel != nullptr && cancel->cancelled();
        const absl::Time now = absl::Now();
        if (cancelled || now >= deadline) {
          // The scheduler still holds the request: remember it, so that a
          // grant it makes later is handed back at once (OnGrant).
          pending_.erase(request_id);
          if (abandoned_.size() < kMaxAbandoned) abandoned_[request_id] = {task, plan.model};
          Observe(GrantWaitOutcome::kAbandoned, start);
          return cancelled ? Cancelled(*cancel) : OutOfTime();
        }
        changed_.WaitWithDeadline(&mu_, std::min(deadline, now + options_.cancel_poll));
      }
      if (pending->lost) continue;  // asked again on the next stream
      grant = std::move(pending->grant);
    }
    if (!grant.granted()) {
      Observe(GrantWaitOutcome::kRefused, start);
      return absl::FailedPreconditionError(grant.error().empty() ? "no reason given"
                                                                 : grant.error());
    }
    Observe(GrantWaitOutcome::kGranted, start);
    return grant.grant_id();
  }
}

void LlmGrants::Report(const LlmTask& task, const std::string& grant_id, const LlmCallPlan& plan,
                       const LlmCallEnd& end) {
  v1::ConnectRequest report = CallReport(task, grant_id, plan.model, end);
  while (true) {
    uint64_t stream;
    {
      absl::MutexLock lock(&mu_);
      if (!up_) {
        KeepLocked(std::move(report));
        return;
      }
      if (!governs_) return;  // nobody to bill: an older scheduler
      stream = stream_;
    }
    if (link_.Send(report)) return;
    absl::MutexLock lock(&mu_);
    // The stream ended after the check: kept for the next one (the loop),
    // unless the link failed on a stream still up, which must not spin.
    if (up_ && stream_ == stream) {
      KeepLocked(std::move(report));
      return;
    }
  }
}

void LlmGrants::KeepLocked(v1::ConnectRequest report) {
  if (kept_reports_.size() == kMaxKeptReports) {
    kept_reports_.pop_front();
    log::Warn("dropped the oldest LLM call report kept for the scheduler")
        .With("limit", kMaxKeptReports);
  }
  kept_reports_.push_back(std::move(report));
}

void LlmGrants::OnGrant(const v1::LlmGrant& grant) {
  std::optional<v1::ConnectRequest> release;
  {
    absl::MutexLock lock(&mu_);
    if (auto it = pending_.find(grant.request_id()); it != pending_.end()) {
      it->second->grant = grant;
      it->second->done = true;
      pending_.erase(it);
      changed_.SignalAll();
      return;
    }
    auto it = abandoned_.find(grant.request_id());
    if (it == abandoned_.end()) {
      // No request waits for it (a request sent twice across a reconnect
      // was granted twice): hand it back as a call not made.
      if (grant.granted()) release = CallReport({}, grant.grant_id(), "", {});
    } else {
      if (grant.granted()) {
        release = CallReport(it->second.task, grant.grant_id(), it->second.model, {});
      }
      abandoned_.erase(it);
    }
  }
  // On the stream the grant came on; should that be gone already, so is the
  // grant (the scheduler releases it when the lease ends).
  if (release.has_value()) link_.Send(*std::move(release));
}

std::vector<v1::ConnectRequest> LlmGrants::OnWelcome(bool governs_llm_calls) {
  absl::MutexLock lock(&mu_);
  up_ = true;
  ++stream_;
  governs_ = governs_llm_calls;
  changed_.SignalAll();
  std::vector<v1::ConnectRequest> reports;
  if (governs_) {
    reports.assign(std::make_move_iterator(kept_reports_.begin()),
                   std::make_move_iterator(kept_reports_.end()));
  } else if (!kept_reports_.empty()) {
    log::Info("dropped LLM call reports: the scheduler does not govern LLM calls")
        .With("reports", kept_reports_.size());
  }
  kept_reports_.clear();
  return reports;
}

void LlmGrants::OnStreamLost() {
  absl::MutexLock lock(&mu_);
  if (up_) down_since_ = absl::Now();
  up_ = false;
  for (auto& [request_id, pending] : pending_) {
    pending->lost = true;
    pending->done = true;
  }
  pending_.clear();
  // Their scheduler forgot them with the stream: no grant will come.
  abandoned_.clear();
  changed_.SignalAll();
}

}  // namespace taskboard::worker
