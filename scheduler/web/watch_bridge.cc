#include "scheduler/web/watch_bridge.h"

#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/client_callback.h"
#include "scheduler/server/grpc_status.h"
#include "scheduler/web/http_status.h"
#include "scheduler/web/sse.h"
#include "taskboard/v1/scheduler.grpc.pb.h"

namespace taskboard::web {
namespace {

// Above this many bytes waiting for the socket, the next response is read
// only once they are sent.
constexpr size_t kHighWaterBytes = 256 << 10;

class WatchBridge;

// What the HTTP side's callbacks reach, which may outlive the bridge: the
// bridge deletes itself when the call is done, and clears `bridge` first.
struct Link {
  std::shared_ptr<grpc::ClientContext> context;
  absl::Mutex mu;
  WatchBridge* bridge ABSL_GUARDED_BY(mu) = nullptr;
  // No read is in flight: the next waits for the HTTP side to drain.
  bool waiting_for_room ABSL_GUARDED_BY(mu) = false;
};

class WatchBridge final : public grpc::ClientReadReactor<v1::WatchRunResponse> {
 public:
  WatchBridge(JsonGateway& gateway, std::shared_ptr<grpc::ClientContext> context,
              v1::WatchRunRequest request, std::unique_ptr<StreamSlots::Slot> slot,
              std::shared_ptr<http::HttpResponder> responder)
      : gateway_(gateway),
        link_(std::make_shared<Link>()),
        request_(std::move(request)),
        slot_(std::move(slot)),
        responder_(std::move(responder)),
        stub_(v1::Scheduler::NewStub(gateway.channel())) {
    link_->context = std::move(context);
    absl::MutexLock lock(&link_->mu);
    link_->bridge = this;
  }

  void Start() {
    stub_->async()->WatchRun(link_->context.get(), &request_, this);
    StartRead(&response_);
    StartCall();
  }

  void OnReadDone(bool ok) override {
    if (!ok) return;  // the call is over; OnDone says how
    const int64_t position = response_.events_size() > 0
                                 ? response_.events(response_.events_size() - 1).seq()
                                 : response_.event().seq();
    absl::StatusOr<std::string> json = JsonGateway::ToJson(response_);
    if (!json.ok()) {
      link_->context->TryCancel();
      return;
    }
    if (stream_ == nullptr) Open();
    if (!stream_->Write(SseFrame("message", position, *json))) {
      link_->context->TryCancel();  // the reader left
      return;
    }
    if (stream_->Buffered() >= kHighWaterBytes) {
      {
        absl::MutexLock lock(&link_->mu);
        link_->waiting_for_room = true;
      }
      // The HTTP side may have sent it all between the look and the flag,
      // and `drained` found no flag: look again.
      if (stream_->Buffered() >= kHighWaterBytes) return;
      absl::MutexLock lock(&link_->mu);
      if (!link_->waiting_for_room) return;  // `drained` has read on
      link_->waiting_for_room = false;
    }
    StartRead(&response_);
  }

  void OnDone(const grpc::Status& status) override {
    {
      absl::MutexLock lock(&link_->mu);
      link_->bridge = nullptr;
    }
    absl::Status ended = server::FromGrpcStatus(status);
    if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      // The stream's own time is up: the reader resumes from where it was.
      ended = absl::DeadlineExceededError(
          absl::StrCat("the stream ends after ", absl::FormatDuration(gateway_.stream_timeout()),
                       "; reconnect with Last-Event-ID to go on"));
    }
    if (stream_ == nullptr) {
      if (ended.ok()) ended = absl::InternalError("the stream ended before its first message");
      http::HttpResponse error;
      error.status = HttpStatusOf(ended.code());
      error.content_type = "application/json";
      error.body = ErrorBody(ended);
      error.headers.emplace_back("Cache-Control", "no-store");
      responder_->Respond(std::move(error));
    } else {
      stream_->Write(SseFrame("end", std::nullopt, ErrorBody(ended)));
      stream_->Close();
    }
    // Last, once this bridge (and the stream slot it holds) is gone: the
    // gateway's Shutdown waits for every stream to be removed.
    JsonGateway& gateway = gateway_;
    const std::shared_ptr<Link> link = link_;
    delete this;
    gateway.RemoveStream(link->context.get());
  }

 private:
  // The first response: the request is answered as a stream from now on.
  void Open() {
    http::HttpResponse head;
    head.content_type = "text/event-stream";
    head.headers.emplace_back("Cache-Control", "no-store");
    stream_ = responder_->Stream(std::move(head));
    std::weak_ptr<Link> weak = link_;
    stream_->SetCallbacks(
        /*drained=*/
        [weak] {
          std::shared_ptr<Link> link = weak.lock();
          if (link == nullptr) return;
          absl::MutexLock lock(&link->mu);
          if (link->bridge == nullptr || !link->waiting_for_room) return;
          link->waiting_for_room = false;
          link->bridge->StartRead(&link->bridge->response_);
        },
        /*done=*/
        [weak] {
          // The reader left, or the server stops: the call has no one to
          // serve. Its OnDone frees the slot.
          if (std::shared_ptr<Link> link = weak.lock()) link->context->TryCancel();
        });
  }

  JsonGateway& gateway_;
  const std::shared_ptr<Link> link_;
  v1::WatchRunRequest request_;
  v1::WatchRunResponse response_;
  const std::unique_ptr<StreamSlots::Slot> slot_;
  const std::shared_ptr<http::HttpResponder> responder_;
  const std::unique_ptr<v1::Scheduler::Stub> stub_;
  std::shared_ptr<http::HttpStream> stream_;  // gRPC's threads, one callback at a time
};

}  // namespace

void FollowAsEvents(JsonGateway& gateway, v1::WatchRunRequest request,
                    absl::string_view authorization, std::unique_ptr<StreamSlots::Slot> slot,
                    std::shared_ptr<http::HttpResponder> responder) {
  absl::StatusOr<std::shared_ptr<grpc::ClientContext>> context = gateway.AddStream(authorization);
  if (!context.ok()) {
    http::HttpResponse error;
    error.status = HttpStatusOf(context.status().code());
    error.content_type = "application/json";
    error.body = ErrorBody(context.status());
    responder->Respond(std::move(error));
    return;
  }
  (new WatchBridge(gateway, *std::move(context), std::move(request), std::move(slot),
                   std::move(responder)))
      ->Start();
}

}  // namespace taskboard::web
