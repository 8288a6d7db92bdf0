#ifndef TASKBOARD_SCHEDULER_HA_ETCD_BIDI_CALL_H_
#define TASKBOARD_SCHEDULER_HA_ETCD_BIDI_CALL_H_

// One bidirectional stream to etcd (LeaseKeepAlive, Watch) on gRPC's callback
// API, turned into calls that block with a deadline: Send queues a message,
// Next waits for the next one received. Nothing blocks on the network, so a
// member that stopped answering (SIGSTOP, partition) costs a deadline, never
// a hung thread. One read is always pending; writes go one at a time in the
// order sent.
//
// Thread safety: Send and Next from any thread; the callbacks run on gRPC's
// threads. Destroying the call cancels it and waits for gRPC to be done with
// it.

#include <deque>
#include <functional>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/client_callback.h"

namespace taskboard::ha {

template <typename Request, typename Response>
class EtcdBidiCall final : public grpc::ClientBidiReactor<Request, Response> {
 public:
  // Starts the stream: `start(context, reactor)` is the stub's async() method.
  using StartFn =
      std::function<void(grpc::ClientContext*, grpc::ClientBidiReactor<Request, Response>*)>;
  explicit EtcdBidiCall(const StartFn& start) {
    start(&context_, this);
    this->StartRead(&incoming_);
    this->StartCall();
  }
  ~EtcdBidiCall() override {
    context_.TryCancel();
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(&done_));
  }
  EtcdBidiCall(const EtcdBidiCall&) = delete;
  EtcdBidiCall& operator=(const EtcdBidiCall&) = delete;

  // Queues `message`; false once the stream is over.
  bool Send(Request message) {
    Request* start = nullptr;
    {
      absl::MutexLock lock(&mu_);
      if (done_ || failed_write_) return false;
      outgoing_.push_back(std::move(message));
      if (outgoing_.size() == 1) start = &outgoing_.front();
    }
    // Outside the lock (a reaction takes it); a deque's elements stay put.
    if (start != nullptr) this->StartWrite(start);
    return true;
  }

  // The next message received. DEADLINE_EXCEEDED when none came by
  // `deadline` (the stream stays usable); once the stream is over and every
  // message it delivered was taken, its final status (UNAVAILABLE when the
  // server ended it OK).
  absl::StatusOr<Response> Next(absl::Time deadline) {
    absl::MutexLock lock(&mu_);
    auto ready = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return !received_.empty() || done_; };
    mu_.AwaitWithDeadline(absl::Condition(&ready), deadline);
    if (!received_.empty()) {
      Response message = std::move(received_.front());
      received_.pop_front();
      return message;
    }
    if (done_) {
      if (final_status_.ok()) return absl::UnavailableError("the server ended the stream");
      return absl::Status(static_cast<absl::StatusCode>(final_status_.error_code()),
                          absl::StrCat("the stream ended: ", final_status_.error_message()));
    }
    return absl::DeadlineExceededError("no answer before the deadline");
  }

  void OnReadDone(bool ok) override {
    if (!ok) return;  // the stream is ending; OnDone follows
    {
      absl::MutexLock lock(&mu_);
      received_.push_back(std::move(incoming_));
    }
    incoming_ = Response();
    this->StartRead(&incoming_);
  }

  void OnWriteDone(bool ok) override {
    Request* next = nullptr;
    {
      absl::MutexLock lock(&mu_);
      outgoing_.pop_front();
      if (!ok) failed_write_ = true;
      if (ok && !outgoing_.empty()) next = &outgoing_.front();
    }
    if (next != nullptr) this->StartWrite(next);
  }

  void OnDone(const grpc::Status& status) override {
    absl::MutexLock lock(&mu_);
    final_status_ = status;
    done_ = true;
  }

 private:
  grpc::ClientContext context_;
  Response incoming_;  // owned by the read in flight
  absl::Mutex mu_;
  std::deque<Request> outgoing_ ABSL_GUARDED_BY(mu_);  // front: the write in flight
  std::deque<Response> received_ ABSL_GUARDED_BY(mu_);
  bool failed_write_ ABSL_GUARDED_BY(mu_) = false;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status final_status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_ETCD_BIDI_CALL_H_
