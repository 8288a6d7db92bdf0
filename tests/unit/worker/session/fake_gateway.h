#ifndef TASKBOARD_TESTS_UNIT_WORKER_SESSION_FAKE_GATEWAY_H_
#define TASKBOARD_TESTS_UNIT_WORKER_SESSION_FAKE_GATEWAY_H_

// A scripted WorkerGateway on 127.0.0.1 (port 0) for session tests: each
// Connect call becomes a FakeStream the test reads from, writes to and ends,
// playing the scheduler's part message by message.

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/optional.h"
#include "grpcpp/grpcpp.h"
#include "taskboard/v1/worker.grpc.pb.h"

namespace taskboard::worker::testing {

class FakeStream {
 public:
  using ServerStream = grpc::ServerReaderWriter<v1::ConnectResponse, v1::ConnectRequest>;
  FakeStream(grpc::ServerContext* context, ServerStream* stream)
      : context_(context), stream_(stream) {}

  // The next message from the worker, skipping heartbeats unless asked for
  // them; nullopt after `timeout` or once the worker closed its side.
  absl::optional<v1::ConnectRequest> Next(bool heartbeats = false,
                                          absl::Duration timeout = absl::Seconds(10)) {
    absl::MutexLock lock(&mu_);
    const absl::Time deadline = absl::Now() + timeout;
    while (true) {
      while (!inbox_.empty()) {
        v1::ConnectRequest message = std::move(inbox_.front());
        inbox_.pop_front();
        if (heartbeats || !message.has_heartbeat()) return message;
      }
      if (reads_done_ ||
          !mu_.AwaitWithDeadline(absl::Condition(this, &FakeStream::HasNews), deadline)) {
        return absl::nullopt;
      }
    }
  }

  // Whether the worker half-closed (WritesDone) or dropped the stream.
  bool WaitReadsDone(absl::Duration timeout = absl::Seconds(10)) {
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(absl::Condition(&reads_done_), timeout);
  }

  bool Send(const v1::ConnectResponse& message) {
    absl::MutexLock lock(&write_mu_);
    return stream_->Write(message);
  }

  // Ends the call (idempotent): with `status` once the worker half-closed;
  // before that the sync API cannot interrupt the handler's Read, so the call
  // is cancelled instead, which the worker sees as CANCELLED (to a worker,
  // any end of the stream is a disconnect).
  void End(grpc::Status status = grpc::Status::OK) {
    absl::MutexLock lock(&mu_);
    if (ended_) return;
    ended_ = true;
    status_ = std::move(status);
    if (!reads_done_) context_->TryCancel();
  }

  // The handler's side: collects messages, then waits for End.
  grpc::Status Serve() {
    v1::ConnectRequest message;
    while (stream_->Read(&message)) {
      absl::MutexLock lock(&mu_);
      inbox_.push_back(message);
    }
    absl::MutexLock lock(&mu_);
    reads_done_ = true;
    mu_.Await(absl::Condition(&ended_));
    return status_;
  }

 private:
  bool HasNews() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !inbox_.empty() || reads_done_; }

  grpc::ServerContext* const context_;
  ServerStream* const stream_;
  absl::Mutex write_mu_;
  mutable absl::Mutex mu_;
  std::deque<v1::ConnectRequest> inbox_ ABSL_GUARDED_BY(mu_);
  bool reads_done_ ABSL_GUARDED_BY(mu_) = false;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
};

class FakeGateway : public v1::WorkerGateway::Service {
 public:
  FakeGateway() {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(this);
    server_ = builder.BuildAndStart();
  }
  ~FakeGateway() override {
    EndAll();
    server_->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  // The `index`-th Connect call (0-based), once it arrives.
  FakeStream* WaitForStream(size_t index, absl::Duration timeout = absl::Seconds(10)) {
    struct Wait {
      FakeGateway* self;
      size_t index;
    } wait{this, index};
    absl::MutexLock lock(&mu_);
    if (!mu_.AwaitWithTimeout(absl::Condition(
                                  +[](Wait* w) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                                    return w->self->streams_.size() > w->index;
                                  },
                                  &wait),
                              timeout)) {
      return nullptr;
    }
    return streams_[index].get();
  }

  // Ends every call so far (the worker sees its stream end).
  void EndAll(grpc::Status status = grpc::Status::OK) {
    absl::MutexLock lock(&mu_);
    for (auto& stream : streams_) stream->End(status);
  }

  grpc::Status Connect(grpc::ServerContext* context, FakeStream::ServerStream* stream) override {
    FakeStream* fake;
    {
      absl::MutexLock lock(&mu_);
      streams_.push_back(std::make_unique<FakeStream>(context, stream));
      fake = streams_.back().get();
    }
    return fake->Serve();
  }

 private:
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  absl::Mutex mu_;
  std::vector<std::unique_ptr<FakeStream>> streams_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::worker::testing

#endif  // TASKBOARD_TESTS_UNIT_WORKER_SESSION_FAKE_GATEWAY_H_
