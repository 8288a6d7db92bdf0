#ifndef TASKBOARD_SCHEDULER_WEB_JSON_GATEWAY_H_
#define TASKBOARD_SCHEDULER_WEB_JSON_GATEWAY_H_

// The HTTP API's engine room (docs/http-api.md): a Scheduler method called
// with a JSON body is parsed into the method's request message (proto3 JSON
// mapping), called over an in-process gRPC channel with the HTTP caller's
// `Authorization` header as its metadata, and answered as JSON. Going
// through the gRPC service rather than beside it is the point: the same
// token check, roles, tenant isolation, request limits and engine calls as a
// gRPC client gets, with no second copy of any of them.

#include <functional>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "taskboard/v1/scheduler.pb.h"

namespace google::protobuf {
class Message;
class MethodDescriptor;
}  // namespace google::protobuf

namespace grpc {
class Channel;
class ClientContext;
}  // namespace grpc

namespace taskboard::web {

struct GatewayOptions {
  // The longest a unary call may take.
  absl::Duration call_timeout = absl::Seconds(30);
  // A followed run's stream ends after this long; the browser (or curl
  // loop) reconnects with Last-Event-ID and misses nothing.
  absl::Duration stream_timeout = absl::Minutes(5);
};

enum class MethodKind { kUnknown, kUnary, kServerStream };

class JsonGateway {
 public:
  // `channel`: an in-process channel to the scheduler's own gRPC server.
  JsonGateway(std::shared_ptr<grpc::Channel> channel, GatewayOptions options);
  ~JsonGateway();
  JsonGateway(const JsonGateway&) = delete;
  JsonGateway& operator=(const JsonGateway&) = delete;

  // Whether `method` ("GetRun") is a Scheduler method the API serves, and
  // how.
  static MethodKind KindOf(absl::string_view method);
  // NOT_FOUND naming `method` and every method the API has.
  static absl::Status UnknownMethod(absl::string_view method);
  // A response message in protobuf's JSON mapping, as every answer is sent.
  static absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message);

  // Calls a unary method and waits for it: the response as JSON, or the
  // call's status (INVALID_ARGUMENT naming the field for JSON that does not
  // fit the request; NOT_FOUND for an unknown method). Blocks: call it off
  // the HTTP server's thread.
  // `peer`: the HTTP client's address, for the audit trail
  // (scheduler/server/http_peer.h); "" for none. `trace` is the HTTP
  // request's W3C trace context, passed on as the call's `traceparent` and
  // `tracestate` metadata (SubmitRun's run then joins the caller's trace;
  // docs/observability.md#trace-context).
  struct TraceHeaders {
    absl::string_view traceparent;
    absl::string_view tracestate;
  };
  absl::StatusOr<std::string> Call(absl::string_view method, absl::string_view json,
                                   absl::string_view authorization, absl::string_view peer = "",
                                   TraceHeaders trace = {});

  // Call with the request given as a message rather than JSON (the HTTP
  // API's events, docs/http-api.md#events, whose body is the payload, not
  // the request). Errors as Call.
  absl::StatusOr<std::string> CallMessage(absl::string_view method,
                                          const google::protobuf::Message& request,
                                          absl::string_view authorization,
                                          absl::string_view peer = "");

  // WatchRun's request from its JSON, replaying after `resume_after` (an
  // SSE reader's Last-Event-ID) when that is later than the body's
  // afterSeq. INVALID_ARGUMENT as Call.
  absl::StatusOr<v1::WatchRunRequest> WatchRequest(absl::string_view json,
                                                   int64_t resume_after) const;

  // A stream's call context, set up with the caller's token and the stream
  // deadline and registered so that Shutdown cancels it; UNAVAILABLE once
  // shutting down. RemoveStream when the call is over.
  absl::StatusOr<std::shared_ptr<grpc::ClientContext>> AddStream(absl::string_view authorization);
  void RemoveStream(grpc::ClientContext* context);

  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  absl::Duration stream_timeout() const { return options_.stream_timeout; }

  // Cancels the open streams, waits (up to 10 s) for them to end, and
  // refuses new calls (UNAVAILABLE), so the HTTP server can end before the
  // gRPC server stops. Idempotent.
  void Shutdown();

 private:
  // The call of a found unary method with its serialized request.
  absl::StatusOr<std::string> Invoke(const google::protobuf::MethodDescriptor& method,
                                     const std::string& request_bytes,
                                     absl::string_view authorization, absl::string_view peer,
                                     TraceHeaders trace);

  const std::shared_ptr<grpc::Channel> channel_;
  const GatewayOptions options_;
  absl::Mutex mu_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  absl::flat_hash_map<grpc::ClientContext*, std::weak_ptr<grpc::ClientContext>> streams_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_JSON_GATEWAY_H_
