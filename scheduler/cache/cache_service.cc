#include "scheduler/cache/cache_service.h"

#include <optional>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "scheduler/cache/cache_key.h"
#include "scheduler/cache/cache_rule.h"

namespace taskboard::cache {
namespace {

// The rule of one call and, when it is cacheable, its key.
struct ResolvedCall {
  CacheRule rule;
  CacheKey key;  // empty unless rule.cacheable
  std::string warning;
};

// INVALID_ARGUMENT: the flow rule's cache_if does not parse, or the args are
// not a JSON object; the call is then not cacheable.
absl::StatusOr<ResolvedCall> ResolveCall(const CallContext& ctx, absl::string_view tool_name,
                                         absl::string_view args_json) {
  const v1::ToolCacheConfig& flow =
      ctx.flow_cfg != nullptr ? *ctx.flow_cfg : v1::ToolCacheConfig::default_instance();
  absl::StatusOr<CacheRule> rule = ResolveCacheRule(tool_name, ctx.decl, flow, ctx.phase);
  if (!rule.ok()) return rule.status();
  ResolvedCall out;
  out.rule = *std::move(rule);
  if (!out.rule.cacheable) return out;
  ResolvedScope scope = ResolveScopeId(
      out.rule.scope,
      {.run_id = ctx.run_id, .root_run_id = ctx.root_run_id, .session_id = ctx.session_id});
  absl::StatusOr<CacheKey> key = MakeCacheKey(ctx.tenant, scope.scope, scope.scope_id, tool_name,
                                              args_json, out.rule.key_fields);
  if (!key.ok()) return key.status();
  out.key = *std::move(key);
  if (!scope.warning.empty()) out.warning = absl::StrCat("tool '", tool_name, "': ", scope.warning);
  return out;
}

// A tool result as JSON for cache_if: text that is not JSON is a string.
Json ResultAsJson(const std::string& result_json) {
  if (result_json.empty()) return nullptr;
  absl::StatusOr<Json> parsed = ParseJson(result_json);
  return parsed.ok() ? *std::move(parsed) : Json(result_json);
}

}  // namespace

ToolCacheService::ToolCacheService(std::string call_id_prefix)
    : inflight_(std::move(call_id_prefix)) {}

absl::Status ToolCacheService::Load(store::Store& store, int64_t now_ms, store::WriteBatch* batch) {
  return cache_.Load(store, now_ms, batch);
}

Decision ToolCacheService::Decide(const CallContext& ctx, const v1::ToolLookup& lookup,
                                  int64_t now_ms) {
  Decision decision;
  decision.reply.set_request_id(lookup.request_id());

  absl::StatusOr<ResolvedCall> call = ResolveCall(ctx, lookup.tool_name(), lookup.args_json());
  if (!call.ok() || !call->rule.cacheable) {
    if (!call.ok()) {
      decision.warning =
          absl::StrCat("tool cache: not caching this call: ", call.status().message());
    }
    decision.outcome = Decision::Outcome::kNotCacheable;
    decision.reply.set_outcome(v1::ToolDecision::OUTCOME_NOT_CACHEABLE);
    ++counters_.not_cacheable;
    return decision;
  }
  decision.warning = std::move(call->warning);

  if (call->rule.ttl_ms > 0) {
    if (std::optional<ToolCache::Hit> hit = cache_.Lookup(call->key.key, now_ms)) {
      decision.outcome = Decision::Outcome::kHit;
      decision.reply.set_outcome(v1::ToolDecision::OUTCOME_HIT);
      decision.reply.set_result_json(std::move(hit->result_json));
      decision.reply.set_cache_age_ms(hit->age_ms);
      *decision.reply.mutable_source_task() = std::move(hit->source_task);
      ++counters_.hits;
      cache_.stats().CountLookup(call->key.key, lookup.tool_name(), CacheStats::Lookup::kHit);
      return decision;
    }
  }

  InflightCalls::JoinResult joined = inflight_.Join(
      call->key.key,
      Caller{.worker_id = ctx.worker_id,
             .request_id = lookup.request_id(),
             .task_id = lookup.task_id(),
             .lease_id = lookup.lease_id()},
      {.announce = lookup.announce(),
       .recovery_hold_until_ms = now_ms < recovery_hold_until_ms_ ? recovery_hold_until_ms_ : 0});
  if (joined.role == InflightCalls::Role::kWait) {
    decision.outcome = Decision::Outcome::kWait;
    ++counters_.coalesced;
    cache_.stats().CountLookup(call->key.key, lookup.tool_name(), CacheStats::Lookup::kCoalesced);
    return decision;
  }
  decision.outcome = Decision::Outcome::kMiss;
  decision.reply.set_outcome(v1::ToolDecision::OUTCOME_MISS);
  decision.reply.set_call_id(std::move(joined.call_id));
  ++counters_.misses;
  cache_.stats().CountLookup(call->key.key, lookup.tool_name(), CacheStats::Lookup::kMiss);
  return decision;
}

std::vector<Answer> ToolCacheService::Record(const CallContext& ctx,
                                             const v1::ToolObservation& observation, int64_t now_ms,
                                             store::WriteBatch* batch) {
  if (observation.cached() || observation.call_id().empty()) return {};

  absl::StatusOr<ResolvedCall> call =
      ResolveCall(ctx, observation.tool_name(), observation.args_json());
  bool reusable = observation.error().empty();
  if (reusable && call.ok() && call->rule.cache_if.has_value()) {
    absl::StatusOr<Json> args = ParseJson(observation.args_json());
    reusable = call->rule.cache_if->Evaluate(ResultAsJson(observation.result_json()),
                                             args.ok() ? *args : Json(nullptr));
    if (!reusable) ++counters_.rejected_by_cache_if;
  }
  v1::TaskRef source;
  source.set_run_id(ctx.run_id);
  source.set_task_id(observation.task_id());
  if (reusable && call.ok() && call->rule.cacheable && call->rule.ttl_ms > 0) {
    cache_.Put(call->key,
               {.tool_name = observation.tool_name(),
                .result_json = observation.result_json(),
                .source_task = source,
                .ttl_ms = call->rule.ttl_ms},
               call->rule.max_entries, now_ms, batch);
    ++counters_.stored;
  }

  // Only the owner of a live call may complete or fail it. A call reported
  // under an id this scheduler never gave (a restarted one: the worker
  // announced the call again and got a new id it had not seen yet) still
  // completes the live call of its key when that call is this task's.
  // A call held with no owner (a recovery hold) is settled by any report of
  // its key: that report is the result the hold waited for.
  std::string call_id = observation.call_id();
  if (inflight_.Owner(call_id) == nullptr && call.ok())
    call_id = inflight_.CallOfKey(call->key.key);
  const Caller* owner = inflight_.Owner(call_id);
  const bool reported_by_owner = owner != nullptr && owner->task_id == observation.task_id() &&
                                 owner->lease_id == observation.lease_id();
  if (!reported_by_owner && !inflight_.Unowned(call_id)) return {};
  if (!reusable) {
    std::vector<InflightCalls::Promotion> promotions;
    if (std::optional<InflightCalls::Promotion> promotion = inflight_.Failed(call_id)) {
      promotions.push_back(*std::move(promotion));
    }
    return Promoted(std::move(promotions));
  }
  std::vector<Answer> answers;
  for (Caller& waiter : inflight_.Completed(call_id)) {
    Answer answer;
    answer.decision.set_request_id(waiter.request_id);
    answer.decision.set_outcome(v1::ToolDecision::OUTCOME_COALESCED);
    answer.decision.set_result_json(observation.result_json());
    answer.decision.set_cache_age_ms(0);
    *answer.decision.mutable_source_task() = source;
    answer.caller = std::move(waiter);
    answers.push_back(std::move(answer));
  }
  return answers;
}

std::vector<Answer> ToolCacheService::WorkerLost(absl::string_view worker_id, int64_t now_ms) {
  return Promoted(inflight_.WorkerLost(worker_id, hold_ms_ > 0 ? now_ms + hold_ms_ : 0));
}

std::vector<Answer> ToolCacheService::LeaseLost(absl::string_view lease_id) {
  return Promoted(inflight_.LeaseLost(lease_id));
}

void ToolCacheService::Sweep(int64_t now_ms, store::WriteBatch* batch) {
  cache_.Sweep(now_ms, batch);
}

ToolCacheCounters ToolCacheService::counters() const {
  ToolCacheCounters out = counters_;
  out.entries = cache_.entries();
  out.evictions = cache_.evictions();
  out.expirations = cache_.expirations();
  out.inflight_calls = inflight_.calls();
  out.waiters = inflight_.waiters();
  return out;
}

std::vector<Answer> ToolCacheService::Promoted(std::vector<InflightCalls::Promotion> promotions) {
  std::vector<Answer> answers;
  answers.reserve(promotions.size());
  for (InflightCalls::Promotion& promotion : promotions) {
    Answer answer;
    answer.decision.set_request_id(promotion.caller.request_id);
    answer.decision.set_outcome(v1::ToolDecision::OUTCOME_MISS);
    answer.decision.set_call_id(std::move(promotion.call_id));
    answer.caller = std::move(promotion.caller);
    answers.push_back(std::move(answer));
    ++counters_.promotions;
  }
  return answers;
}

}  // namespace taskboard::cache
