#ifndef TASKBOARD_SCHEDULER_SERVER_ENGINE_HANDLE_H_
#define TASKBOARD_SCHEDULER_SERVER_ENGINE_HANDLE_H_

// What the client-facing services serve from, and whether they may: the
// engine, the store and the saved flows of a scheduler that leads. A single
// scheduler publishes them before it serves; a replica of a replicated
// scheduler (docs/high-availability.md) serves its port while it follows,
// with the handle empty, and publishes them once it won the election and
// recovered. CallGate::Admit consults the handle for every call, so a
// follower answers every call with NotLeaderError (not_leader.h) in one place.
//
// Published once and never taken back: a leader that loses its term exits
// (replica_role.h), so a handler that was admitted may keep using what it
// got for as long as the process runs.
//
// Thread safety: safe for concurrent use.

#include <atomic>
#include <functional>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/server/not_leader.h"

namespace taskboard {
namespace engine {
class Engine;
class SavedFlows;
}  // namespace engine
namespace store {
class Store;
}  // namespace store

namespace server {

class EngineHandle {
 public:
  // Once, before or while serving; everything outlives the handle's users.
  // `still_leading` (null: always) is asked on every CheckLeader: a leader
  // past its lease deadline answers NotLeader at once, before it exits.
  void Publish(engine::Engine* engine, engine::SavedFlows* saved, store::Store* store,
               std::function<bool()> still_leading = nullptr);

  // Null until published.
  engine::Engine* engine() const { return published() ? engine_ : nullptr; }
  engine::SavedFlows* saved() const { return published() ? saved_ : nullptr; }
  store::Store* store() const { return published() ? store_ : nullptr; }
  bool published() const { return published_.load(std::memory_order_acquire); }

  // Who leads, as this replica last heard (nullopt: unknown); for the
  // NotLeader answers.
  void SetLeader(std::optional<LeaderHint> leader);
  std::optional<LeaderHint> leader() const;

  // OK once published and still leading; otherwise NotLeaderError naming
  // the leader.
  absl::Status CheckLeader() const;

 private:
  engine::Engine* engine_ = nullptr;
  engine::SavedFlows* saved_ = nullptr;
  store::Store* store_ = nullptr;
  std::function<bool()> still_leading_;
  std::atomic<bool> published_{false};
  mutable absl::Mutex mu_;
  std::optional<LeaderHint> leader_ ABSL_GUARDED_BY(mu_);
};

}  // namespace server
}  // namespace taskboard

#endif  // TASKBOARD_SCHEDULER_SERVER_ENGINE_HANDLE_H_
