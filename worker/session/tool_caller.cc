#include "worker/session/tool_caller.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/canonical_json.h"
#include "common/json.h"
#include "common/log/log.h"
#include "common/otel/span.h"

namespace taskboard::worker {
namespace {

std::string NewRequestPrefix() {
  absl::BitGen random;
  return absl::StrFormat("tl-%08x", absl::Uniform<uint32_t>(random));
}

v1::ToolDecision NotCacheable() {
  v1::ToolDecision decision;
  decision.set_outcome(v1::ToolDecision::OUTCOME_NOT_CACHEABLE);
  return decision;
}

// A status as the ledger's error text.
std::string ErrorText(const absl::Status& status) {
  return status.message().empty() ? absl::StatusCodeToString(status.code())
                                  : std::string(status.message());
}

absl::Status Cancelled(const CancelToken& cancel) {
  const std::string reason = cancel.reason();
  return absl::CancelledError(
      absl::StrCat("cancelled: ", reason.empty() ? "no reason given" : reason));
}

}  // namespace

ToolCaller::ToolCaller(const ToolRegistry& registry, ToolLink& link, ToolCallerOptions options)
    : registry_(registry), link_(link), options_(options), request_prefix_(NewRequestPrefix()) {}

std::string ToolCaller::NextRequestId() {
  absl::MutexLock lock(&mu_);
  return absl::StrCat(request_prefix_, "-", ++next_request_);
}

namespace {

// taskboard.tool.cache: the scheduler's answer to the lookup.
const char* ToolCacheOutcome(v1::ToolDecision::Outcome outcome) {
  switch (outcome) {
    case v1::ToolDecision::OUTCOME_HIT:
      return "hit";
    case v1::ToolDecision::OUTCOME_MISS:
      return "miss";
    case v1::ToolDecision::OUTCOME_COALESCED:
      return "coalesced";
    default:
      return "not_cacheable";
  }
}

// The call's `execute_tool <name>` span (docs/observability.md#worker-spans),
// from `start` to now: the tool, the cache's answer and, for a cached
// result, the task that paid for it. Arguments and results are not
// exported: they may hold what the prompt held.
void RecordToolSpan(const TaskTrace& trace, absl::Time start, absl::string_view tool_name,
                    const absl::StatusOr<v1::ToolDecision>& decision,
                    const absl::StatusOr<ToolCallResult>& result) {
  otel::Span span =
      trace.StartChild(absl::StrCat("execute_tool ", tool_name), otel::SpanKind::kInternal, start);
  if (!span.recording()) return;
  span.SetAttribute("gen_ai.operation.name", "execute_tool")
      .SetAttribute("gen_ai.tool.name", tool_name);
  if (decision.ok()) {
    span.SetAttribute("taskboard.tool.cache", ToolCacheOutcome(decision->outcome()));
    if (decision->outcome() == v1::ToolDecision::OUTCOME_HIT ||
        decision->outcome() == v1::ToolDecision::OUTCOME_COALESCED) {
      span.SetAttribute("taskboard.tool.cache_age_ms", decision->cache_age_ms());
      if (!decision->source_task().task_id().empty()) {
        span.SetAttribute("taskboard.tool.source_run_id", decision->source_task().run_id())
            .SetAttribute("taskboard.tool.source_task_id", decision->source_task().task_id());
      }
    }
  }
  if (result.ok()) {
    span.SetStatus(otel::SpanStatusCode::kOk);
  } else {
    span.SetAttribute("error.type", absl::StatusCodeToString(result.status().code()));
    span.SetStatus(otel::SpanStatusCode::kError, result.status().message());
  }
  span.End();
}

}  // namespace

absl::StatusOr<ToolCallResult> ToolCaller::Call(const ToolTask& task, absl::string_view tool_name,
                                                absl::string_view args_json) {
  const absl::Time start = absl::Now();
  absl::StatusOr<std::shared_ptr<const Tool>> tool = registry_.Find(tool_name);
  if (!tool.ok()) return tool.status();
  if (absl::Status allowed = task.allowed.Check(tool_name); !allowed.ok()) return allowed;
  absl::StatusOr<Json> args = ParseJson(args_json.empty() ? "{}" : args_json);
  if (!args.ok() || !args->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the arguments of tool '", tool_name, "' must be a JSON object",
                     args.ok() ? absl::StrCat(", got ", DumpJson(*args))
                               : absl::StrCat(": ", args.status().message())));
  }
  const std::string canonical = CanonicalJson(*args);
  if (task.cancel->cancelled()) return Cancelled(*task.cancel);

  v1::ConnectRequest message;
  v1::ToolObservation& observation = *message.mutable_observation();
  observation.set_task_id(task.task_id);
  observation.set_lease_id(task.lease_id);
  observation.set_tool_name(std::string(tool_name));
  observation.set_args_json(canonical);

  absl::StatusOr<ToolCallResult> result;
  // Set when the tool ran here.
  std::optional<absl::Duration> execution;
  absl::StatusOr<v1::ToolDecision> decision = Decide(task, tool_name, canonical);
  if (!decision.ok()) {
    result = decision.status();
  } else {
    switch (decision->outcome()) {
      case v1::ToolDecision::OUTCOME_HIT:
      case v1::ToolDecision::OUTCOME_COALESCED: {
        ToolCallResult cached;
        cached.result_json = decision->result_json();
        cached.cached = true;
        cached.cache_age_ms = decision->cache_age_ms();
        cached.source_task = decision->source_task();
        result = std::move(cached);
        observation.set_cached(true);
        observation.set_cache_age_ms(decision->cache_age_ms());
        *observation.mutable_source_task() = decision->source_task();
        break;
      }
      case v1::ToolDecision::OUTCOME_MISS:
      default: {
        // A MISS makes this worker the call's owner: known, so that it can
        // be announced again to a restarted scheduler.
        std::optional<uint64_t> owned;
        if (decision->outcome() == v1::ToolDecision::OUTCOME_MISS) {
          absl::MutexLock lock(&mu_);
          owned = next_executing_++;
          executing_[*owned] = {task.task_id, task.lease_id, std::string(tool_name), canonical,
                                decision->call_id()};
        }
        const absl::Time execution_start = absl::Now();
        absl::StatusOr<std::string> executed =
            (*tool)->Execute(canonical, ToolContext{task.workdir, task.cancel, task.flow_state});
        execution = absl::Now() - execution_start;
        if (owned.has_value()) {
          absl::MutexLock lock(&mu_);
          observation.set_call_id(executing_[*owned].call_id);
          executing_.erase(*owned);
        }
        if (executed.ok()) {
          ToolCallResult fresh;
          fresh.result_json = *std::move(executed);
          result = std::move(fresh);
        } else {
          result = executed.status();
        }
        break;
      }
    }
  }
  if (result.ok()) {
    observation.set_result_json(result->result_json);
  } else {
    observation.set_error(ErrorText(result.status()));
  }
  observation.set_duration_ms(absl::ToInt64Milliseconds(absl::Now() - start));
  if (options_.metrics != nullptr) {
    options_.metrics->ToolCallFinished(tool_name, observation.cached(), result.ok(), execution);
  }
  if (task.trace != nullptr) {
    RecordToolSpan(*task.trace, start, tool_name, decision, result);
  }
  link_.SendObservation(std::move(message));
  return result;
}

absl::StatusOr<v1::ToolDecision> ToolCaller::Decide(const ToolTask& task,
                                                    absl::string_view tool_name,
                                                    const std::string& args_json) {
  if (auto it = task.cache_overrides.find(std::string(tool_name));
      it != task.cache_overrides.end() && !it->second) {
    return NotCacheable();
  }
  auto uncached = [&](absl::string_view why) {
    log::Warn("running a tool without the shared cache")
        .With("task_id", task.task_id)
        .With("tool", tool_name)
        .With("reason", why);
    return NotCacheable();
  };
  // Without a stream (none yet, or it ended before the decision) the call
  // asks again on the next one, until reconnect_wait has passed.
  absl::Time give_up = absl::Now() + options_.reconnect_wait;
  std::string why_uncached;
  while (true) {
    absl::StatusOr<std::optional<v1::ToolDecision>> decision =
        AskOnce(task, tool_name, args_json, &why_uncached);
    if (!decision.ok()) return decision.status();
    if (decision->has_value()) return **decision;
    if (why_uncached.rfind("no decision", 0) == 0 || absl::Now() >= give_up) {
      return uncached(why_uncached);
    }
    if (task.cancel->cancelled()) return Cancelled(*task.cancel);
    absl::SleepFor(std::min(options_.cancel_poll * 5, give_up - absl::Now()));
  }
}

absl::StatusOr<std::optional<v1::ToolDecision>> ToolCaller::AskOnce(const ToolTask& task,
                                                                    absl::string_view tool_name,
                                                                    const std::string& args_json,
                                                                    std::string* why_not) {
  const std::string request_id = NextRequestId();
  auto pending = std::make_shared<Pending>();
  {
    absl::MutexLock lock(&mu_);
    pending_.emplace(request_id, pending);
  }
  v1::ConnectRequest lookup;
  lookup.mutable_tool_lookup()->set_request_id(request_id);
  lookup.mutable_tool_lookup()->set_task_id(task.task_id);
  lookup.mutable_tool_lookup()->set_lease_id(task.lease_id);
  lookup.mutable_tool_lookup()->set_tool_name(std::string(tool_name));
  lookup.mutable_tool_lookup()->set_args_json(args_json);
  if (!link_.SendLookup(std::move(lookup))) {
    absl::MutexLock lock(&mu_);
    pending_.erase(request_id);
    *why_not = absl::StrCat("not connected to the scheduler for ",
                            absl::FormatDuration(options_.reconnect_wait));
    return std::nullopt;
  }

  absl::MutexLock lock(&mu_);
  const absl::Time deadline = absl::Now() + options_.decision_timeout;
  while (!pending->done) {
    if (task.cancel->cancelled()) {
      pending_.erase(request_id);
      return Cancelled(*task.cancel);
    }
    const absl::Time now = absl::Now();
    if (now >= deadline) {
      pending_.erase(request_id);
      *why_not = absl::StrCat("no decision from the scheduler within ",
                              absl::FormatDuration(options_.decision_timeout));
      return std::nullopt;
    }
    mu_.AwaitWithDeadline(absl::Condition(&pending->done),
                          std::min(deadline, now + options_.cancel_poll));
  }
  if (pending->lost) {
    *why_not = absl::StrCat(
        "the stream to the scheduler ended before its decision and none came "
        "back within ",
        absl::FormatDuration(options_.reconnect_wait));
    return std::nullopt;
  }
  return std::optional<v1::ToolDecision>(pending->decision);
}

void ToolCaller::OnDecision(const v1::ToolDecision& decision) {
  absl::MutexLock lock(&mu_);
  if (auto again = reannounced_.find(decision.request_id()); again != reannounced_.end()) {
    auto executing = executing_.find(again->second);
    if (executing != executing_.end() && decision.outcome() == v1::ToolDecision::OUTCOME_MISS) {
      executing->second.call_id = decision.call_id();
    }
    reannounced_.erase(again);
    return;
  }
  auto it = pending_.find(decision.request_id());
  if (it == pending_.end()) return;
  it->second->decision = decision;
  it->second->done = true;
  pending_.erase(it);
}

std::vector<v1::ConnectRequest> ToolCaller::ReannounceExecutingCalls() {
  absl::MutexLock lock(&mu_);
  reannounced_.clear();  // answers for an earlier stream will not come
  std::vector<v1::ConnectRequest> lookups;
  for (const auto& [id, call] : executing_) {
    const std::string request_id = absl::StrCat(request_prefix_, "-again-", ++next_request_);
    reannounced_[request_id] = id;
    v1::ConnectRequest& message = lookups.emplace_back();
    v1::ToolLookup& lookup = *message.mutable_tool_lookup();
    lookup.set_request_id(request_id);
    lookup.set_task_id(call.task_id);
    lookup.set_lease_id(call.lease_id);
    lookup.set_tool_name(call.tool_name);
    lookup.set_args_json(call.args_json);
    lookup.set_announce(true);
  }
  return lookups;
}

void ToolCaller::OnStreamLost() {
  absl::MutexLock lock(&mu_);
  for (auto& [request_id, pending] : pending_) {
    pending->lost = true;
    pending->done = true;
  }
  pending_.clear();
}

}  // namespace taskboard::worker
