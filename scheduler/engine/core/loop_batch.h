#ifndef TASKBOARD_SCHEDULER_ENGINE_CORE_LOOP_BATCH_H_
#define TASKBOARD_SCHEDULER_ENGINE_CORE_LOOP_BATCH_H_

// What one iteration of the engine's loop gathers before its group commit:
// the time it runs at, the runs it touched, the writes that are not run
// records, and the effects that may happen only once the batch is written
// (docs/semantics.md#delivery-and-durability): replies, sends to workers, published events. Every
// component writes here; the loop commits it (commit_pipeline.h).
//
// Loop thread only: nothing here takes a lock.

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "absl/time/time.h"
#include "scheduler/dispatch/worker_channel.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::engine {

class LoopBatch {
 public:
  using Effects = std::vector<std::function<void()>>;

  // The loop, at the top of a batch (and recovery, before it reads runs):
  // the time every decision of the batch is made at.
  void Begin(int64_t now_ms) { now_ms_ = now_ms; }
  int64_t now_ms() const { return now_ms_; }
  absl::Time now() const { return absl::FromUnixMillis(now_ms_); }
  // Run ids, lease ids and retry jitter.
  absl::BitGen& rng() { return rng_; }

  // `run_id` changed or was read in this batch: its drivers advance, its
  // changed tasks are queued and it is committed.
  void Touch(const std::string& run_id) { touched_.insert(run_id); }
  const std::set<std::string>& touched() const { return touched_; }
  void ClearTouched() { touched_.clear(); }

  // Writes committed with the batch besides the touched runs' records.
  store::WriteBatch& writes() { return writes_; }
  // Runs `effect` on the commit thread once the batch is written, after the
  // effects queued before it.
  void AfterCommit(std::function<void()> effect) { effects_.push_back(std::move(effect)); }
  // Sends `message` on `channel` once the batch is written.
  void Send(std::shared_ptr<dispatch::WorkerChannel> channel, v1::ConnectResponse message) {
    effects_.push_back([channel = std::move(channel), message = std::move(message)]() mutable {
      channel->Send(std::move(message));
    });
  }

  // The loop, at the commit: what the batch wrote and promised, leaving
  // both empty for the next batch.
  store::WriteBatch TakeWrites() {
    store::WriteBatch taken;
    std::swap(taken, writes_);
    return taken;
  }
  Effects TakeEffects() {
    Effects taken;
    taken.swap(effects_);
    return taken;
  }

 private:
  int64_t now_ms_ = 0;
  absl::BitGen rng_;
  std::set<std::string> touched_;
  store::WriteBatch writes_;
  Effects effects_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_CORE_LOOP_BATCH_H_
