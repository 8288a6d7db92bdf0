#include "scheduler/engine/core/commit_pipeline.h"

#include <cstdlib>
#include <utility>

#include "common/log/log.h"

namespace taskboard::engine {

CommitPipeline::CommitPipeline(store::Store* store, OnWritten on_written, size_t max_in_flight)
    : store_(store),
      on_written_(std::move(on_written)),
      max_in_flight_(max_in_flight < 1 ? 1 : max_in_flight),
      thread_([this] { Loop(); }) {}

CommitPipeline::~CommitPipeline() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
}

void CommitPipeline::Commit(store::WriteBatch batch, Effects effects, bool more_work) {
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
    Write(batch.writes);
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
