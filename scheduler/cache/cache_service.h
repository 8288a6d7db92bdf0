#ifndef TASKBOARD_SCHEDULER_CACHE_CACHE_SERVICE_H_
#define TASKBOARD_SCHEDULER_CACHE_CACHE_SERVICE_H_

// The shared tool cache as the engine sees it (docs/semantics.md#tool-cache): one object
// that turns a worker's ToolLookup into a ToolDecision and a worker's
// ToolObservation into a cache write plus the answers owed to coalesced
// waiters. It combines the rule resolution (cache_rule.h), keys
// (cache_key.h), stored entries (tool_cache.h) and in-flight coalescing
// (inflight_calls.h), so the engine only routes messages:
//
//   ToolLookup      -> Decide  -> send reply now (HIT / MISS / NOT_CACHEABLE),
//                                 or nothing yet (kWait)
//   ToolObservation -> Record  -> send each Answer to its caller's worker
//   worker gone     -> WorkerLost, lease gone (expired, cancelled, task
//                      finished) -> LeaseLost -> send each Answer
//   restart         -> Load;  every tick -> Sweep
//
// Mutations append to the engine's WriteBatch (one per loop iteration);
// memory matches what the batch writes. Time comes in as now_ms.
// Thread safety: none. Owned and called by the engine loop only.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "scheduler/cache/inflight_calls.h"
#include "scheduler/cache/tool_cache.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/flow.pb.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::cache {

// What the engine knows about the call's run and worker; the rest comes
// from the ToolLookup / ToolObservation itself.
struct CallContext {
  std::string tenant;
  std::string run_id;
  // Empty: the run is a root run.
  std::string root_run_id;
  // Empty: submitted without a session id.
  std::string session_id;
  // The worker that sent the message.
  std::string worker_id;
  // The worker's declaration of the tool; nullptr when it declared none.
  const v1::ToolDeclaration* decl = nullptr;
  // The run's flow toolCache config; nullptr: all defaults.
  const v1::ToolCacheConfig* flow_cfg = nullptr;
  // The task's phase `cacheable` override; nullptr: none.
  const v1::PhaseCacheOverride* phase = nullptr;
};

struct Decision {
  enum class Outcome {
    kHit,           // reply: OUTCOME_HIT with the stored result
    kMiss,          // reply: OUTCOME_MISS with a call id; execute and report
    kWait,          // an identical call is in flight: send nothing now
    kNotCacheable,  // reply: OUTCOME_NOT_CACHEABLE
  };
  Outcome outcome = Outcome::kNotCacheable;
  // The message to send now; request_id is always set. Unused for kWait.
  v1::ToolDecision reply;
  // Non-empty: a line for the run's events (session scope fell back to
  // request scope; a flow rule's cache_if does not parse; the call's
  // arguments are not a JSON object). Repeats on every lookup of the run:
  // the engine may want to emit it once per run.
  std::string warning;
};

// A decision owed to a caller that was waiting (or is promoted to execute).
struct Answer {
  Caller caller;
  v1::ToolDecision decision;
};

struct ToolCacheCounters {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t coalesced = 0;
  int64_t not_cacheable = 0;
  // Results written to the cache, and successful results cache_if rejected.
  int64_t stored = 0;
  int64_t rejected_by_cache_if = 0;
  // Waiters promoted to execute (owner errored or was lost).
  int64_t promotions = 0;
  int64_t entries = 0;
  int64_t evictions = 0;
  int64_t expirations = 0;
  int64_t inflight_calls = 0;
  int64_t waiters = 0;
};

class ToolCacheService {
 public:
  ToolCacheService() = default;
  // Call ids "<call_id_prefix><n>" (tests).
  explicit ToolCacheService(std::string call_id_prefix);
  ToolCacheService(const ToolCacheService&) = delete;
  ToolCacheService& operator=(const ToolCacheService&) = delete;

  // The bounds on every entry (ToolCache::set_limits); before Load.
  void set_limits(CacheLimits limits) { cache_.set_limits(limits); }
  // How long identical calls wait for a call whose executing worker is out
  // of touch before one of them runs it (--tool-call-hold-ms; 0: at once).
  void set_hold_ms(int64_t hold_ms) { hold_ms_ = hold_ms; }
  // After a restart or a takeover: until now_ms + the hold, a call nobody
  // announced waits in case a worker out of touch is running it
  // (docs/tool-cache.md#when-an-executing-worker-is-out-of-touch).
  void HoldNewCalls(int64_t now_ms) {
    recovery_hold_until_ms_ = hold_ms_ > 0 ? now_ms + hold_ms_ : 0;
  }

  // Rebuilds the entries after a restart (ToolCache::Load; same errors).
  absl::Status Load(store::Store& store, int64_t now_ms, store::WriteBatch* batch);

  // Answers a lookup: NOT_CACHEABLE when the resolved rule says so (or
  // cannot be resolved, or the args are not a JSON object: see warning);
  // HIT when an unexpired entry exists and ttl > 0; otherwise the call joins
  // the in-flight calls: MISS with a call id for the first caller, kWait for
  // the others.
  Decision Decide(const CallContext& ctx, const v1::ToolLookup& lookup, int64_t now_ms);

  // Takes a worker's report of a call it executed. Reports of calls served
  // from the cache (cached) or not cacheable (no call_id) change nothing.
  // A result is reusable when there is no error and cache_if (if any) holds;
  // a reusable result is stored (when cacheable with ttl > 0) and handed to
  // the call's waiters as COALESCED; otherwise one waiter is promoted and
  // answered MISS with a new call id. A report whose call id is unknown or
  // not owned by the reporting task/lease (superseded owner, scheduler
  // restart) is still stored but answers nobody.
  std::vector<Answer> Record(const CallContext& ctx, const v1::ToolObservation& observation,
                             int64_t now_ms, store::WriteBatch* batch);

  // The caller's worker or lease is gone: its waits are dropped and its
  // executions handed to a waiter each (answered MISS). A worker's
  // executions are held for the hold instead: it may be back and announce
  // them (ToolLookup.announce).
  std::vector<Answer> WorkerLost(absl::string_view worker_id, int64_t now_ms);
  std::vector<Answer> LeaseLost(absl::string_view lease_id);
  // Hands each call whose hold ended to a waiter (answered MISS).
  std::vector<Answer> ReleaseHeld(int64_t now_ms) {
    return Promoted(inflight_.ReleaseHeld(now_ms));
  }
  // When the next hold ends; nullopt when nothing is held.
  std::optional<int64_t> NextRelease() const { return inflight_.NextRelease(); }

  // Deletes expired entries.
  void Sweep(int64_t now_ms, store::WriteBatch* batch);
  // Deletes the entries of the scope instances of deleted runs
  // (ToolCache::RemoveScope).
  void RemoveScope(const std::string& scope_prefix, store::WriteBatch* batch) {
    cache_.RemoveScope(scope_prefix, batch);
  }

  ToolCacheCounters counters() const;
  // Entries and lookups per tenant, scope kind and tool (cache_stats.h).
  std::vector<CacheStatsRow> StatsRows(const std::optional<std::string>& tenant) const {
    return cache_.stats().Rows(tenant);
  }
  const CacheLimits& limits() const { return cache_.limits(); }
  // Whether `call_id` is a call this scheduler is waiting on.
  bool CallInFlight(absl::string_view call_id) const { return inflight_.Owner(call_id) != nullptr; }

 private:
  std::vector<Answer> Promoted(std::vector<InflightCalls::Promotion> promotions);

  ToolCache cache_;
  InflightCalls inflight_;
  ToolCacheCounters counters_;
  int64_t hold_ms_ = 0;
  int64_t recovery_hold_until_ms_ = 0;
};

}  // namespace taskboard::cache

#endif  // TASKBOARD_SCHEDULER_CACHE_CACHE_SERVICE_H_
