#ifndef TASKBOARD_COMMON_STREAM_BATCH_H_
#define TASKBOARD_COMMON_STREAM_BATCH_H_

// Batches on the worker stream (ConnectRequest.batch, ConnectResponse.batch).
//
// gRPC allows one write in flight per stream, and each write costs a
// serialization, a completion wake-up and usually a sendmsg. A writer that
// finds several messages queued when its previous write completes sends them
// as one batch: an idle stream still sends each message at once (no delay is
// added), and a busy one pays the per-write cost once per burst instead of
// once per task. Both sides write through TakeWrite (WatchRun's bursts
// through TakeBounded); readers check batches with CheckBatch before acting
// on any message of one.

#include <algorithm>
#include <cstddef>
#include <deque>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/repeated_ptr_field.h"

namespace taskboard {

// At most this many messages in one batch: a reader bounds the work one
// write can queue. Part of the protocol (worker.proto).
inline constexpr int kMaxBatchMessages = 4096;
// A writer closes a batch once it holds this many bytes, so a batch stays
// far below either side's receive limit; a larger single message is written
// alone.
inline constexpr size_t kBatchBytes = 1 << 20;

// Hands entries from the front of `queue` to `take`, in order, at most
// `max_count` of them and within kBatchBytes (`size_of` an entry's encoded
// size); always at least one when `queue` is not empty (a larger one goes
// alone).
template <typename T, typename SizeOf, typename Take>
void TakeBounded(std::deque<T>& queue, int max_count, const SizeOf& size_of, const Take& take) {
  size_t bytes = 0;
  int taken = 0;
  while (!queue.empty() && taken < max_count) {
    const size_t size = size_of(queue.front());
    if (taken > 0 && bytes + size > kBatchBytes) break;
    bytes += size;
    take(std::move(queue.front()));
    queue.pop_front();
    ++taken;
  }
}

// Moves messages from the front of `queue` to the end of `out` (empty), in
// order, TakeBounded.
template <typename T>
void MoveBounded(std::deque<T>& queue, google::protobuf::RepeatedPtrField<T>& out, int max_count) {
  out.Reserve(out.size() + static_cast<int>(std::min<size_t>(queue.size(), max_count)));
  TakeBounded(
      queue, max_count, [](const T& message) { return message.ByteSizeLong(); },
      [&out](T&& message) { *out.Add() = std::move(message); });
}

// Takes the next write from `queue` (not empty): its front message alone, or,
// when the peer accepts batches and more are queued, a batch of the front
// messages in order.
template <typename Message>
Message TakeWrite(std::deque<Message>& queue, bool batches) {
  Message write;
  if (!batches || queue.size() == 1) {
    write = std::move(queue.front());
    queue.pop_front();
    return write;
  }
  auto* messages = write.mutable_batch()->mutable_messages();
  MoveBounded(queue, *messages, kMaxBatchMessages);
  if (messages->size() == 1) {
    // The front message alone was over kBatchBytes: it goes as itself.
    Message single = std::move(*messages->Mutable(0));
    return single;
  }
  return write;
}

// OK, or why a received batch is refused: a batch holds no batch and at most
// kMaxBatchMessages messages.
template <typename Batch>
absl::Status CheckBatch(const Batch& batch) {
  if (batch.messages_size() > kMaxBatchMessages) {
    return absl::InvalidArgumentError(
        absl::StrCat("a batch holds ", batch.messages_size(), " messages, over the limit of ",
                     kMaxBatchMessages, "; send the rest in another batch"));
  }
  for (const auto& message : batch.messages()) {
    if (message.has_batch()) {
      return absl::InvalidArgumentError("a batch may not hold a batch; send its messages inline");
    }
  }
  return absl::OkStatus();
}

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_STREAM_BATCH_H_
