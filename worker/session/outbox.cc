#include "worker/session/outbox.h"

#include <utility>

#include "common/stream_batch.h"

namespace taskboard::worker {

Outbox::Outbox(Stream* stream) : stream_(stream), writer_([this] { WriteLoop(); }) {}

Outbox::~Outbox() {
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
  }
  writer_.join();
}

void Outbox::Push(v1::ConnectRequest message) {
  absl::MutexLock lock(&mu_);
  if (closing_ || stopped_) return;
  queue_.push_back(std::move(message));
}

void Outbox::Push(std::vector<v1::ConnectRequest> messages) {
  absl::MutexLock lock(&mu_);
  if (closing_ || stopped_) return;
  for (v1::ConnectRequest& message : messages) queue_.push_back(std::move(message));
}

void Outbox::AllowBatches() {
  absl::MutexLock lock(&mu_);
  batches_ = true;
}

void Outbox::Close() {
  absl::MutexLock lock(&mu_);
  closing_ = true;
}

bool Outbox::HasWork() const { return stopped_ || closing_ || !queue_.empty(); }

void Outbox::WriteLoop() {
  while (true) {
    v1::ConnectRequest message;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &Outbox::HasWork));
      if (stopped_) return;
      if (queue_.empty()) break;  // closing, and everything is written
      message = TakeWrite(queue_, batches_);
    }
    if (!stream_->Write(message)) {
      absl::MutexLock lock(&mu_);
      stopped_ = true;
      queue_.clear();
      return;
    }
  }
  stream_->WritesDone();
}

}  // namespace taskboard::worker
