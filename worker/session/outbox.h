#ifndef TASKBOARD_WORKER_SESSION_OUTBOX_H_
#define TASKBOARD_WORKER_SESSION_OUTBOX_H_

// The write side of one Connect stream. gRPC allows one Write in flight per
// stream, but task threads, the reader and the ticker all have messages to
// send: they Push (never blocking), and one writer thread writes them in push
// order. Messages pushed after Close or after a failed Write are dropped, as
// the stream is gone; the session re-sends what matters (results) on the next.

#include <deque>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/support/sync_stream.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::worker {

class Outbox {
 public:
  using Stream = grpc::ClientReaderWriterInterface<v1::ConnectRequest, v1::ConnectResponse>;

  // `stream` must outlive the Outbox.
  explicit Outbox(Stream* stream);
  // Drops what is still queued and joins the writer. A Write blocked on a
  // stalled peer returns only when the call ends: cancel its ClientContext
  // first.
  ~Outbox();
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;

  void Push(v1::ConnectRequest message);
  // Queues `messages` in order at once: a writer that is waiting wakes once
  // for all of them (and takes them as one batch), where a Push each would
  // wake it at the first and have it contend with the pushes that follow.
  void Push(std::vector<v1::ConnectRequest> messages);

  // From now on, messages queued behind a write in flight go out together in
  // one batch (common/stream_batch.h): the scheduler's Welcome said it reads
  // them.
  void AllowBatches();

  // Writes what is queued, then half-closes the stream (WritesDone).
  void Close();

 private:
  void WriteLoop();
  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Stream* const stream_;
  mutable absl::Mutex mu_;
  std::deque<v1::ConnectRequest> queue_ ABSL_GUARDED_BY(mu_);
  bool batches_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::thread writer_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_SESSION_OUTBOX_H_
