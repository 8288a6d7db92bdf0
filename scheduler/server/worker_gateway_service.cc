#include "scheduler/server/worker_gateway_service.h"

#include <deque>
#include <memory>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/stream_batch.h"
#include "scheduler/dispatch/worker_channel.h"
#include "scheduler/server/grpc_status.h"

namespace taskboard::server {
namespace {

constexpr char kConnectMethod[] = "/taskboard.v1.WorkerGateway/Connect";

class WorkerStream;

// What the engine holds: sends go to the stream's outbox until the stream
// is done, then are dropped.
class StreamChannel final : public dispatch::WorkerChannel {
 public:
  explicit StreamChannel(WorkerStream* stream) : stream_(stream) {}
  void Send(v1::ConnectResponse message) override;
  void Close(const std::string& reason) override;
  void Detach() {
    absl::MutexLock lock(&mu_);
    stream_ = nullptr;
  }

 private:
  absl::Mutex mu_;
  WorkerStream* stream_ ABSL_GUARDED_BY(mu_);
};

class WorkerStream final : public grpc::ServerBidiReactor<v1::ConnectRequest, v1::ConnectResponse> {
 public:
  WorkerStream(engine::Engine* engine, const CallGate* gate,
               const grpc::CallbackServerContext& context, std::string identity)
      : engine_(engine),
        gate_(gate),
        identity_(std::move(identity)),
        stream_id_(engine->NewStreamId()) {
    channel_ = std::make_shared<StreamChannel>(this);
    // A revoked token ends the stream (call_gate.h, CloseRevoked).
    tracked_ =
        gate_->Track(context, kConnectMethod,
                     [channel = channel_](const std::string& reason) { channel->Close(reason); });
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      // The worker closed its side or the connection broke.
      Close(grpc::Status::OK);
      return;
    }
    if (!said_hello_) {
      if (!request_.has_hello()) {
        Close(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                           "the first message on a worker stream must be Hello"));
        return;
      }
      said_hello_ = true;
      {
        absl::MutexLock lock(&mu_);
        batches_ = request_.hello().accepts_batches();
      }
      engine_->WorkerHello(stream_id_, std::move(*request_.mutable_hello()), channel_, identity_);
    } else {
      if (request_.has_batch()) {
        if (absl::Status checked = CheckBatch(request_.batch()); !checked.ok()) {
          Close(ToGrpcStatus(checked));
          return;
        }
      }
      engine_->WorkerMessage(stream_id_, std::move(request_));
    }
    request_.Clear();
    StartRead(&request_);
  }

  void Enqueue(v1::ConnectResponse message) {
    {
      absl::MutexLock lock(&mu_);
      if (closing_) return;
      outbox_.push_back(std::move(message));
      if (writing_) return;
      writing_ = true;
      current_ = TakeWrite(outbox_, batches_);
    }
    StartWrite(&current_);
  }

  void OnWriteDone(bool ok) override {
    bool write = false;
    bool finish = false;
    {
      absl::MutexLock lock(&mu_);
      writing_ = false;
      if (!ok) closing_ = true;
      if (!closing_ && !outbox_.empty()) {
        writing_ = true;
        current_ = TakeWrite(outbox_, batches_);
        write = true;
      } else if (closing_ && !finished_) {
        finished_ = true;
        finish = true;
      }
    }
    if (write) StartWrite(&current_);
    if (finish) Finish(finish_status_);
  }

  void OnDone() override {
    gate_->Untrack(tracked_);
    channel_->Detach();
    if (said_hello_) engine_->WorkerDisconnected(stream_id_);
    delete this;
  }

  // Stops sending and finishes once no write is in flight.
  void Close(grpc::Status status) {
    bool finish = false;
    {
      absl::MutexLock lock(&mu_);
      closing_ = true;
      outbox_.clear();
      finish_status_ = std::move(status);
      if (!writing_ && !finished_) {
        finished_ = true;
        finish = true;
      }
    }
    if (finish) Finish(finish_status_);
  }

 private:
  engine::Engine* engine_;
  const CallGate* gate_;
  uint64_t tracked_ = 0;
  const std::string identity_;  // the token's name; "" without authentication
  const uint64_t stream_id_;
  std::shared_ptr<StreamChannel> channel_;
  v1::ConnectRequest request_;  // owned by the read in flight
  bool said_hello_ = false;     // read side only

  absl::Mutex mu_;
  std::deque<v1::ConnectResponse> outbox_ ABSL_GUARDED_BY(mu_);
  // The worker's Hello said it reads batches (common/stream_batch.h).
  bool batches_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status finish_status_;
  v1::ConnectResponse current_;  // owned by the write in flight
};

void StreamChannel::Send(v1::ConnectResponse message) {
  absl::MutexLock lock(&mu_);
  if (stream_ != nullptr) stream_->Enqueue(std::move(message));
}

void StreamChannel::Close(const std::string& reason) {
  absl::MutexLock lock(&mu_);
  if (stream_ != nullptr) stream_->Close(grpc::Status(grpc::StatusCode::UNAVAILABLE, reason));
}

// A stream refused before it starts (not admitted): ends at once.
class RefusedStream final
    : public grpc::ServerBidiReactor<v1::ConnectRequest, v1::ConnectResponse> {
 public:
  explicit RefusedStream(const absl::Status& status) { Finish(ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerBidiReactor<v1::ConnectRequest, v1::ConnectResponse>* WorkerGatewayService::Connect(
    grpc::CallbackServerContext* context) {
  absl::StatusOr<auth::Caller> caller = gate_->Admit(*context, kConnectMethod, nullptr);
  if (!caller.ok()) return new RefusedStream(caller.status());
  return new WorkerStream(handle_->engine(), gate_, *context,
                          caller->principal ? caller->principal->name : "");
}

grpc::ServerUnaryReactor* WorkerGatewayService::RunState(grpc::CallbackServerContext* context,
                                                         const v1::RunStateRequest* request,
                                                         v1::RunStateResponse* response) {
  absl::StatusOr<auth::Caller> caller =
      gate_->Admit(*context, "/taskboard.v1.WorkerGateway/RunState", request);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (!caller.ok()) {
    reactor->Finish(ToGrpcStatus(caller.status()));
    return reactor;
  }
  handle_->engine()->RunStateCall(caller->principal ? caller->principal->name : "", *request,
                                  [reactor, response](absl::StatusOr<v1::RunStateResponse> answer) {
                                    if (answer.ok()) *response = *std::move(answer);
                                    reactor->Finish(ToGrpcStatus(answer.status()));
                                  });
  return reactor;
}

}  // namespace taskboard::server
