#ifndef TASKBOARD_SCHEDULER_CACHE_INFLIGHT_CALLS_H_
#define TASKBOARD_SCHEDULER_CACHE_INFLIGHT_CALLS_H_

// Cluster-wide coalescing of identical tool calls (docs/semantics.md#lookup-outcomes,
// "coalesced"): while one caller executes a call, later callers with the
// same cache key wait for its result instead of executing it again. If the
// execution errors, or its lease is lost, one waiter is promoted to execute
// in its place, so a call never waits on a dead owner.
//
// An owner that is only out of touch is not dead: a worker whose stream
// dropped keeps running its tools, and announces them again when it is back
// (a reconnect, a restarted scheduler, a new leader). So such a call is HELD
// for a while (docs/tool-cache.md#when-an-executing-worker-is-out-of-touch):
// its waiters keep waiting, and the owner's announcement takes the call back.
// Per cache key:
//
//                 Join (first caller)
//     (absent) ----------------------------> EXECUTING(owner, call_id, waiters)
//        ^                                      |   ^        |
//        |  Completed(call_id):                 |   |        | Join: append waiter
//        |    waiters answered with the result  |   +--------+ WorkerLost/LeaseLost/
//        +--------------------------------------+              ForgetWaiter: drop the
//        |                                      |              lost waiters
//        |  Failed(call_id), LeaseLost(owner's  |
//        |  lease), WorkerLost(owner's worker)  |  a waiter is left: the oldest
//        |  with no hold; no waiter left        |  becomes owner under a NEW
//        +--------------------------------------+  call_id (the old one is dead)
//                                               +--> EXECUTING(promoted, new id, rest)
//
//     EXECUTING --WorkerLost(owner's worker, hold_until)--> HELD(owner kept, until)
//     (absent)  --Join during a recovery hold (not an announcement)--> HELD(no owner,
//                 the caller waits): a restarted scheduler or a new leader does not
//                 know what was executing until the workers announce it
//     HELD --Join(announce=true) by its owner's lease, or by anyone when it has
//            no owner--> EXECUTING(the announcer, same call_id)
//     HELD --ReleaseHeld past `until`, or Failed--> as Failed above (a waiter
//            runs it, or the key is forgotten)
//
// Call ids are unique per InflightCalls instance and carry a random prefix,
// so a call id from before a scheduler restart (or a superseded owner) is
// unknown rather than mistaken for a live call: Completed/Failed on an
// unknown id do nothing. Nothing here is durable: after a restart, callers
// that were waiting are re-driven by their workers' reconnects.
//
// InflightCalls knows nothing of ttl: a ttl-0 call still coalesces (the
// caller decides whether to consult ToolCache first).
// Thread safety: none. Owned and called by the engine loop only.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace taskboard::cache {

// Who asked: enough to answer them (worker stream + request id) and to
// notice when they are gone (worker, lease). Opaque to InflightCalls except
// for the ids it matches on.
struct Caller {
  std::string worker_id;
  // The worker's ToolLookup.request_id, echoed in the answer.
  std::string request_id;
  std::string task_id;
  std::string lease_id;
};

class InflightCalls {
 public:
  enum class Role {
    kExecute,  // run the tool, then report with call_id
    kWait,     // an identical call (call_id) is running; wait for its result
  };
  struct JoinResult {
    Role role = Role::kExecute;
    // kExecute: the caller's new call. kWait: the call waited on.
    std::string call_id;
  };
  struct Promotion {
    Caller caller;
    // The promoted caller's new call id (tell it to execute with it).
    std::string call_id;
  };

  // Call ids "c<random 64-bit hex>-<n>".
  InflightCalls();
  // Call ids "<call_id_prefix><n>" (tests).
  explicit InflightCalls(std::string call_id_prefix);

  struct JoinOptions {
    // The caller is already executing the call (it got MISS from an
    // earlier stream or scheduler) and says so again: it takes back a held
    // call of its own lease, or one with no owner.
    bool announce = false;
    // > 0: a recovery hold is on until then (ms). A caller that would
    // execute waits instead, on a held call with no owner, in case a worker
    // out of touch is executing it.
    int64_t recovery_hold_until_ms = 0;
  };
  // The first caller of `key` executes; later ones wait (FIFO). The same
  // caller joining twice (e.g. a task making two identical calls at once)
  // waits on itself, which is correct: it gets its own result.
  JoinResult Join(absl::string_view key, Caller caller, JoinOptions options);
  JoinResult Join(absl::string_view key, Caller caller) {
    return Join(key, std::move(caller), JoinOptions{});
  }

  // The call produced a reusable result: returns the waiters to answer with
  // it (oldest first) and forgets the key. Unknown call id: nothing.
  std::vector<Caller> Completed(absl::string_view call_id);

  // The call errored (or its result was not reusable): promotes the oldest
  // waiter, or forgets the key when none is left. Unknown call id: nullopt.
  std::optional<Promotion> Failed(absl::string_view call_id);

  // Drops every waiter of `worker_id`, then fails every call it owns (as
  // Failed), or with hold_until_ms > 0 holds them until then. Returns the
  // promotions, in the order the calls started.
  std::vector<Promotion> WorkerLost(absl::string_view worker_id, int64_t hold_until_ms = 0);
  // The same for one lease (expired, cancelled or finished task).
  std::vector<Promotion> LeaseLost(absl::string_view lease_id);

  // Fails (as Failed) every held call whose hold ended by now_ms.
  std::vector<Promotion> ReleaseHeld(int64_t now_ms);
  // When the next hold ends; nullopt when nothing is held.
  std::optional<int64_t> NextRelease() const;

  // Drops one waiting request (its caller gave up). False when it was not
  // waiting (an owner is not a waiter: use Failed).
  bool ForgetWaiter(absl::string_view worker_id, absl::string_view request_id);

  // The caller executing `call_id`, nullptr when unknown or held with no
  // owner; for checking that a report comes from the owner.
  const Caller* Owner(absl::string_view call_id) const;
  // Whether `call_id` is held with no owner (a recovery hold): any report
  // of its key settles it.
  bool Unowned(absl::string_view call_id) const;
  // The id of the live call of `key`; "" when none.
  std::string CallOfKey(absl::string_view key) const;

  // For metrics.
  int64_t calls() const { return static_cast<int64_t>(calls_.size()); }
  int64_t waiters() const;

 private:
  struct Call {
    std::string key;
    Caller owner;
    std::deque<Caller> waiters;
    // Start order, for deterministic WorkerLost/LeaseLost results.
    uint64_t seq = 0;
    // > 0: HELD until then (ms); the owner (empty when none) is out of touch.
    int64_t held_until_ms = 0;
  };

  std::string NewCallId();
  // Fails the call of the losing owner; the predicate picks callers that are lost.
  template <typename IsLost>
  std::vector<Promotion> Lose(IsLost is_lost, int64_t hold_until_ms);
  // Fails each call (as Failed), by (start seq, call id), in start order:
  // deterministic promotions.
  std::vector<Promotion> FailInStartOrder(std::vector<std::pair<uint64_t, std::string>> calls);

  std::string prefix_;
  uint64_t next_ = 1;
  absl::flat_hash_map<std::string, Call> calls_;          // call id -> call
  absl::flat_hash_map<std::string, std::string> by_key_;  // key -> call id
};

}  // namespace taskboard::cache

#endif  // TASKBOARD_SCHEDULER_CACHE_INFLIGHT_CALLS_H_
