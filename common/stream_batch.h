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
// through MoveBounded); readers check batches with CheckBatch before acting
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

// Moves messages from the front of `queue` to the end of `out`, in order,
// while `out` holds fewer than `max_count` and stays within kBatchBytes;
// always at least one when `queue` is not empty (a larger one goes alone).
template <typename T>
void MoveBounded(std::deque<T>& queue, google::protobuf::RepeatedPtrField<T>& out, int max_count) {
  out.Reserve(out.size() + static_cast<int>(std::min<size_t>(queue.size(), max_count)));
  size_t bytes = 0;
  while (!queue.empty() && out.size() < max_count) {
    const size_t size = queue.front().ByteSizeLong();
    if (!out.empty() && bytes + size > kBatchBytes) break;
    bytes += size;
    *out.Add() = std::move(queue.front());
    queue.pop_front();
  }
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
