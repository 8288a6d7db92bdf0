#include "scheduler/engine/core/commit_pipeline.h"

#include <cstdlib>
#include <utility>

#include "common/log/log.h"

namespace taskboard::engine {

namespace {

// How long the release thread waits on the gate before it looks again
// whether the pipeline was abandoned or is stopping.
constexpr absl::Duration kReleasePoll = absl::Milliseconds(50);

}  // namespace

CommitPipeline::CommitPipeline(store::Store* store, OnWritten on_written, size_t max_in_flight,
                               ReplicationGate* gate, size_t max_unacked, AckedStore* acked,
                               OnReleased on_released)
    : store_(store),
      on_written_(std::move(on_written)),
      max_in_flight_(max_in_flight < 1 ? 1 : max_in_flight),
      gate_(gate),
      max_unacked_(max_unacked < 1 ? 1 : max_unacked),
      acked_(acked),
      on_released_(std::move(on_released)),
      thread_([this] { Loop(); }) {
  if (gate_ != nullptr) release_thread_ = std::thread([this] { ReleaseLoop(); });
}

CommitPipeline::~CommitPipeline() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
  // Whatever the gate did not release by now would be seen without the
  // followers holding it: dropped (Engine::Stop waits for releases first).
  StopReleasing();
}

void CommitPipeline::StopReleasing() {
  if (!release_thread_.joinable()) return;
  Abandon();
  {
    absl::MutexLock lock(&mu_);
    release_stopping_ = true;
  }
  release_thread_.join();
}

void CommitPipeline::Commit(store::WriteBatch batch, Effects effects, bool more_work) {
  if (gate_ != nullptr) return CommitGated(std::move(batch), std::move(effects), more_work);
  if (!more_work && Idle()) {
    // Only the caller hands over batches, so none can start meanwhile.
    Write(batch);
    for (auto& effect : effects) effect();
    return;
  }
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](CommitPipeline* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
        return self->submitted_ - self->done_ < self->max_in_flight_;
      },
      this));
  pending_.push_back(Batch{std::move(batch), std::move(effects)});
  ++submitted_;
}

void CommitPipeline::CommitGated(store::WriteBatch batch, Effects effects, bool more_work) {
  mu_.Lock();
  // Back-pressure: the disk's queue, and the written batches waiting for the
  // followers' acks.
  mu_.Await(absl::Condition(
      +[](CommitPipeline* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
        return self->submitted_ - self->written_ < self->max_in_flight_ &&
               self->written_ - self->done_ < self->max_unacked_;
      },
      this));
  ++submitted_;
  if (more_work || written_ + 1 != submitted_) {
    pending_.push_back(Batch{std::move(batch), std::move(effects)});
    mu_.Unlock();
    return;
  }
  mu_.Unlock();
  // Nothing else is being written: write on this thread (as Commit does
  // without a gate); only the effects wait for the release. Only the caller
  // hands over batches, so none can start meanwhile.
  const bool empty = batch.empty();
  Write(batch);
  // The snapshot before the index: another writer's batch (a saved flow)
  // in the snapshot then has an index the release waits for too.
  std::shared_ptr<store::Store> snapshot = SnapshotAfterWrite(empty);
  const uint64_t index = gate_->WrittenIndex();
  absl::MutexLock lock(&mu_);
  ++written_;
  Hold(index, std::move(effects), std::move(snapshot), empty);
}

std::shared_ptr<store::Store> CommitPipeline::SnapshotAfterWrite(bool empty) {
  // An empty batch changed nothing: the view of the batch before it stays.
  if (acked_ == nullptr || empty) return nullptr;
  return store_->ReadSnapshot();
}

void CommitPipeline::Hold(uint64_t index, Effects effects, std::shared_ptr<store::Store> snapshot,
                          bool empty) {
  if (abandoned_) {
    dropped_effects_ += effects.size();
    ++done_;
    return;
  }
  unacked_.push_back(Unacked{index, std::move(effects), std::move(snapshot),
                             empty ? absl::InfinitePast() : absl::Now()});
}

bool CommitPipeline::Idle() {
  absl::MutexLock lock(&mu_);
  return done_ == submitted_;
}

void CommitPipeline::WaitWritten() {
  absl::MutexLock lock(&mu_);
  const uint64_t target = submitted_;
  auto written = [this, target]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return written_ >= target; };
  mu_.Await(absl::Condition(&written));
}

void CommitPipeline::Drain() {
  absl::MutexLock lock(&mu_);
  const uint64_t target = submitted_;
  auto done = [this, target]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return done_ >= target; };
  mu_.Await(absl::Condition(&done));
}

bool CommitPipeline::DrainUntil(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  const uint64_t target = submitted_;
  auto done = [this, target]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return done_ >= target; };
  return mu_.AwaitWithDeadline(absl::Condition(&done), deadline);
}

size_t CommitPipeline::Abandon() {
  if (gate_ == nullptr) return 0;
  std::deque<Unacked> dropped;
  {
    absl::MutexLock lock(&mu_);
    abandoned_ = true;
    dropped.swap(unacked_);
  }
  size_t effects = 0;
  for (const Unacked& batch : dropped) effects += batch.effects.size();
  const size_t batches = dropped.size();
  // What the effects captured is released outside the lock (a reply's
  // callback may take locks of its own when destroyed).
  dropped.clear();
  absl::MutexLock lock(&mu_);
  dropped_effects_ += effects;
  done_ += batches;
  return effects;
}

uint64_t CommitPipeline::dropped_effects() {
  absl::MutexLock lock(&mu_);
  return dropped_effects_;
}

void CommitPipeline::Loop() {
  while (true) {
    Batch batch;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](CommitPipeline* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
            return !self->pending_.empty() || self->stopping_;
          },
          this));
      // Stopping still writes what was handed over: it was promised.
      if (pending_.empty()) return;
      batch = std::move(pending_.front());
      pending_.pop_front();
    }
    const bool empty = batch.writes.empty();
    Write(batch.writes);
    if (gate_ != nullptr) {
      std::shared_ptr<store::Store> snapshot = SnapshotAfterWrite(empty);  // before the index
      const uint64_t index = gate_->WrittenIndex();
      absl::MutexLock lock(&mu_);
      ++written_;
      Hold(index, std::move(batch.effects), std::move(snapshot), empty);
      continue;
    }
    {
      absl::MutexLock lock(&mu_);
      ++written_;
    }
    for (auto& effect : batch.effects) effect();
    batch.effects.clear();  // what they captured goes before the next batch
    absl::MutexLock lock(&mu_);
    ++done_;
  }
}

void CommitPipeline::ReleaseLoop() {
  while (true) {
    uint64_t index;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](CommitPipeline* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
            return !self->unacked_.empty() || self->release_stopping_;
          },
          this));
      if (unacked_.empty()) return;
      index = unacked_.front().index;
    }
    if (!gate_->AwaitReleasable(index, absl::Now() + kReleasePoll)) continue;
    Effects effects;
    std::shared_ptr<store::Store> snapshot;
    absl::Time written_at;
    {
      absl::MutexLock lock(&mu_);
      // Abandoned while the gate answered: nothing of it may run.
      if (unacked_.empty()) continue;
      effects = std::move(unacked_.front().effects);
      snapshot = std::move(unacked_.front().snapshot);
      written_at = unacked_.front().written_at;
      unacked_.pop_front();
    }
    if (on_released_ != nullptr && written_at != absl::InfinitePast()) {
      on_released_(absl::Now() - written_at);
    }
    // Reads first: a reply or watch event is never ahead of what they show.
    if (snapshot != nullptr) acked_->Publish(std::move(snapshot), index);
    for (auto& effect : effects) effect();
    effects.clear();  // what they captured goes before the next batch
    absl::MutexLock lock(&mu_);
    ++done_;
  }
}

void CommitPipeline::Write(store::WriteBatch& batch) {
  if (batch.empty()) return;
  const absl::Time started = absl::Now();
  absl::Status written = store_->Write(batch);
  if (!written.ok()) {
    // Memory is now ahead of the disk; continuing could acknowledge results
    // that a restart would lose. Crash and let recovery reload the truth.
    log::Fatal("store write failed; exiting so a restart recovers the durable state")
        .With("error", written);
    std::abort();
  }
  if (on_written_) on_written_(static_cast<int64_t>(batch.ByteSize()), absl::Now() - started);
  batch.Clear();
}

absl::Status PipelinedStore::Write(const store::WriteBatch& batch) {
  pipeline_->WaitWritten();
  return store_->Write(batch);
}

absl::StatusOr<std::optional<std::string>> PipelinedStore::Get(store::Column column,
                                                               absl::string_view key) {
  pipeline_->WaitWritten();
  return store_->Get(column, key);
}

absl::StatusOr<std::vector<std::optional<std::string>>> PipelinedStore::MultiGet(
    store::Column column, absl::Span<const std::string> keys) {
  pipeline_->WaitWritten();
  return store_->MultiGet(column, keys);
}

absl::Status PipelinedStore::Scan(store::Column column, absl::string_view start,
                                  absl::string_view end, const Visitor& visit) {
  pipeline_->WaitWritten();
  return store_->Scan(column, start, end, visit);
}

absl::Status PipelinedStore::ScanReverse(store::Column column, absl::string_view start,
                                         absl::string_view end, const Visitor& visit) {
  pipeline_->WaitWritten();
  return store_->ScanReverse(column, start, end, visit);
}

absl::Status PipelinedStore::ScanOnce(store::Column column, absl::string_view start,
                                      absl::string_view end, const Visitor& visit) {
  pipeline_->WaitWritten();
  return store_->ScanOnce(column, start, end, visit);
}

absl::Status PipelinedStore::SyncAndConfirmRecovery() {
  pipeline_->WaitWritten();
  return store_->SyncAndConfirmRecovery();
}

}  // namespace taskboard::engine
