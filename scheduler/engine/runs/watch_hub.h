#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_WATCH_HUB_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_WATCH_HUB_H_

// Fans committed run events out to live watchers (WatchRun streams). The
// engine publishes a run's events after the batch holding them is durable,
// so a watcher that subscribes first and then replays the store misses
// nothing: every event is either in the replay or delivered live (or both;
// watchers drop seqs they already sent). Thread-safe.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine {

// One commit's events of a run, in seq order, shared read-only by every
// watcher: published once, never copied per watcher (the engine's commit
// thread, which publishes, also writes every batch).
using EventBatch = std::shared_ptr<const std::vector<v1::RunEvent>>;

class WatchSink {
 public:
  virtual ~WatchSink() = default;
  // Called on the engine's commit thread (commit_pipeline.h); must not
  // block. Keep `events` (not a copy) for as long as they are needed; never
  // change them.
  virtual void OnEvents(const EventBatch& events) = 0;
  // The scheduler is shutting down: end the watch as unavailable, saying
  // `reason`, so the client reconnects (with after_seq) to its successor.
  // Must not block.
  virtual void OnClose(const std::string& reason) = 0;
};

class WatchHub {
 public:
  uint64_t Subscribe(absl::string_view run_id, std::shared_ptr<WatchSink> sink);
  void Unsubscribe(absl::string_view run_id, uint64_t subscription);
  void Publish(absl::string_view run_id, const EventBatch& events);
  size_t Watchers(absl::string_view run_id) const;
  // Closes every watch (WatchSink::OnClose).
  void CloseAll(const std::string& reason);

 private:
  mutable absl::Mutex mu_;
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  absl::flat_hash_map<std::string, std::map<uint64_t, std::shared_ptr<WatchSink>>> sinks_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_WATCH_HUB_H_
