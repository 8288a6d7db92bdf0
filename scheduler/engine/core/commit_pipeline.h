#ifndef TASKBOARD_SCHEDULER_ENGINE_CORE_COMMIT_PIPELINE_H_
#define TASKBOARD_SCHEDULER_ENGINE_CORE_COMMIT_PIPELINE_H_

// The engine's store writes, on a thread of their own. The loop builds the
// next batch while the store writes the last one: with `wal`, a third of the
// loop's time was the RocksDB write (WAL append and memtable inserts), spent
// while results waited in the queue. What a batch makes visible outside the
// engine (replies, dispatches, acks, published events: its effects) runs on
// this thread after the batch's write, in batch order, so nothing is seen
// before it is durable (docs/semantics.md#delivery-and-durability), exactly as when the loop wrote
// and ran them itself.
//
// At most `max_in_flight` batches wait here; Commit blocks the loop beyond
// that, so memory stays bounded when the disk is slower than the loop. A
// failed write aborts the process: memory is ahead of the disk, and a restart
// recovers the durable state.
//
// With a ReplicationGate (a replicated scheduler's leader,
// docs/high-availability.md#acknowledged-writes) a written batch's effects
// wait, on a release thread, until the gate releases the batch's log index:
// nothing is acknowledged to anyone before enough followers hold it. They
// still run in batch order. The loop does not wait for the followers: it goes
// on building and writing batches until `max_unacked` written batches wait
// for their release, and only then does Commit block it. Without a gate (a
// single scheduler, `taskboard dev`) nothing of this runs and a batch's
// effects run right after its write, as before.

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/engine/core/acked_store.h"
#include "scheduler/engine/core/replication_gate.h"
#include "scheduler/store/store.h"

namespace taskboard::engine {

class CommitPipeline {
 public:
  using Effects = std::vector<std::function<void()>>;
  // Called on the pipeline's thread after each non-empty write: its bytes and
  // how long the store took (for metrics).
  using OnWritten = std::function<void(int64_t bytes, absl::Duration took)>;
  // With a gate, called on the release thread when a non-empty written
  // batch is released: how long it waited for the gate since its write (for
  // metrics).
  using OnReleased = std::function<void(absl::Duration waited)>;

  // Written batches whose effects may wait for a gate's release before
  // Commit blocks the loop (about a second of batches at a busy leader's
  // rate; each holds only its effects, the write is done).
  static constexpr size_t kDefaultMaxUnacked = 1024;

  // `gate` (null: none) outlives the pipeline. With a gate, `acked` (null:
  // none) is given a snapshot of the store taken after each written batch,
  // just before that batch's released effects run.
  CommitPipeline(store::Store* store, OnWritten on_written, size_t max_in_flight = 2,
                 ReplicationGate* gate = nullptr, size_t max_unacked = kDefaultMaxUnacked,
                 AckedStore* acked = nullptr, OnReleased on_released = nullptr);
  // Writes what was handed over and runs its effects, then joins. With a
  // gate, effects it has not released by then are dropped (Abandon): they
  // must not be seen unless followers hold their batch.
  ~CommitPipeline();
  CommitPipeline(const CommitPipeline&) = delete;
  CommitPipeline& operator=(const CommitPipeline&) = delete;

  // Hands over `batch` (possibly empty) and the effects that may run once it
  // is written. Returns at once unless `max_in_flight` batches are waiting.
  // When nothing is in flight and the caller has no other work waiting
  // (`more_work` false), writes and runs the effects on the calling thread
  // instead: there is nothing to overlap, and a hand-off would only add two
  // thread wake-ups to the batch's latency (a map of 64 items in flight
  // commits thousands of small batches a second).
  void Commit(store::WriteBatch batch, Effects effects, bool more_work = true);
  // Returns once every batch handed over before the call is written; its
  // effects may still be running. The engine's reads wait here first, so
  // the loop always reads what it wrote.
  void WaitWritten();
  // Returns once every batch handed over before the call is written and its
  // effects have run (with a gate: were released and ran, or were dropped).
  void Drain();
  // Drain, giving up at `deadline`: false when something is still waiting.
  bool DrainUntil(absl::Time deadline);
  // For a leader that stops leading: drops the effects of every written
  // batch the gate has not released, and of every batch written from now on,
  // so none is ever seen (docs/high-availability.md#acknowledged-writes).
  // Returns how many effects this call dropped. Without a gate: 0, nothing
  // changes.
  size_t Abandon();
  // Abandon, then ends the release thread: the gate is not called again.
  // Before the gate goes away. Without a gate: nothing.
  void StopReleasing();
  // Effects dropped so far (by Abandon and after it).
  uint64_t dropped_effects();

 private:
  struct Batch {
    store::WriteBatch writes;
    Effects effects;
  };
  // A written batch's effects waiting for the gate to release `index`, and
  // the store as of that batch (null: an empty batch, or no AckedStore).
  struct Unacked {
    uint64_t index = 0;
    Effects effects;
    std::shared_ptr<store::Store> snapshot;
    // When it was written; InfinitePast for an empty batch (nothing waited
    // for the followers).
    absl::Time written_at = absl::InfinitePast();
  };
  void Loop();
  // The release thread (with a gate only): runs the oldest written batch's
  // effects once the gate released its index.
  void ReleaseLoop();
  // With a gate: queues a written batch's effects for release (or drops
  // them once abandoned).
  void Hold(uint64_t index, Effects effects, std::shared_ptr<store::Store> snapshot, bool empty)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // After a gated write of a batch that was `empty` or not: what Hold keeps
  // for the AckedStore.
  std::shared_ptr<store::Store> SnapshotAfterWrite(bool empty);
  void CommitGated(store::WriteBatch batch, Effects effects, bool more_work);
  // Nothing handed over is still being written or having its effects run.
  bool Idle();
  // Writes `batch`; a failed write aborts the process.
  void Write(store::WriteBatch& batch);

  store::Store* const store_;
  const OnWritten on_written_;
  const size_t max_in_flight_;
  ReplicationGate* const gate_;
  const size_t max_unacked_;
  AckedStore* const acked_;
  const OnReleased on_released_;
  absl::Mutex mu_;
  std::deque<Batch> pending_ ABSL_GUARDED_BY(mu_);
  // In index order: written by one writer at a time, in hand-over order.
  std::deque<Unacked> unacked_ ABSL_GUARDED_BY(mu_);
  bool abandoned_ ABSL_GUARDED_BY(mu_) = false;
  bool release_stopping_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t dropped_effects_ ABSL_GUARDED_BY(mu_) = 0;
  // Batches handed over, written, and done (written and effects run, or
  // dropped), counted from 0.
  uint64_t submitted_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t written_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t done_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
  std::thread release_thread_;  // with a gate only
};

// The store as the engine's loop sees it: every read first waits for the
// loop's own writes still in the pipeline; a Write goes through the pipeline
// and waits for it. Threads other than the loop read the store itself: they
// see a batch once it is written, as before.
class PipelinedStore : public store::Store {
 public:
  PipelinedStore(store::Store* store, CommitPipeline* pipeline)
      : store_(store), pipeline_(pipeline) {}

  absl::Status Write(const store::WriteBatch& batch) override;
  absl::StatusOr<std::optional<std::string>> Get(store::Column column,
                                                 absl::string_view key) override;
  absl::StatusOr<std::vector<std::optional<std::string>>> MultiGet(
      store::Column column, absl::Span<const std::string> keys) override;
  absl::Status Scan(store::Column column, absl::string_view start, absl::string_view end,
                    const Visitor& visit) override;
  absl::Status ScanReverse(store::Column column, absl::string_view start, absl::string_view end,
                           const Visitor& visit) override;
  absl::Status ScanOnce(store::Column column, absl::string_view start, absl::string_view end,
                        const Visitor& visit) override;
  bool MayHaveLostWrites() const override { return store_->MayHaveLostWrites(); }
  absl::Status SyncAndConfirmRecovery() override;

 private:
  store::Store* const store_;
  CommitPipeline* const pipeline_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_CORE_COMMIT_PIPELINE_H_
