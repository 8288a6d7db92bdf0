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
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace grpc {
class Channel;
class ClientContext;
}  // namespace grpc

namespace taskboard::web {

struct GatewayOptions {
  // The longest a unary call may take.
  absl::Duration call_timeout = absl::Seconds(30);
  // A followed run's stream ends after this long; the browser (or curl
  // loop) reconnects with Last-Event-ID and misses nothing. Bounds how long
  // a reader that left unnoticed can hold a stream.
  absl::Duration stream_timeout = absl::Minutes(5);
  // Streams open at once (--http-max-streams); more are RESOURCE_EXHAUSTED.
  int max_streams = 32;
};

enum class MethodKind { kUnknown, kUnary, kServerStream };

class JsonGateway;

// One open server stream (JsonGateway::OpenStream). Not thread-safe: one
// reader drives it. Destroying it early cancels the call.
class JsonStream {
 public:
  ~JsonStream();
  JsonStream(const JsonStream&) = delete;
  JsonStream& operator=(const JsonStream&) = delete;

  // The next response as JSON and where a reader resumes after it (for
  // WatchRun: its last event's seq); false at the end of the stream.
  bool Next(std::string& json, int64_t& position);
  // After Next returned false: how the stream ended. A stream that ran out
  // its time (GatewayOptions::stream_timeout) ends DEADLINE_EXCEEDED,
  // saying to reconnect.
  absl::Status Finish();

 private:
  friend class JsonGateway;
  struct Call;
  JsonStream(JsonGateway* gateway, std::unique_ptr<Call> call);

  JsonGateway* const gateway_;
  std::unique_ptr<Call> call_;
  bool finished_ = false;
};

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

  // Calls a unary method: the response as JSON, or the call's status
  // (INVALID_ARGUMENT naming the field for JSON that does not fit the
  // request; NOT_FOUND for an unknown method).
  absl::StatusOr<std::string> Call(absl::string_view method, absl::string_view json,
                                   absl::string_view authorization);

  // Opens a server-streaming method's call (WatchRun) and waits for its
  // first response, so that a refusal (a bad token, an unknown run) is the
  // call's status here rather than an error in the middle of a stream.
  // `resume_after`: for WatchRun, replay events after this seq (an SSE
  // reader's Last-Event-ID). RESOURCE_EXHAUSTED at --http-max-streams.
  absl::StatusOr<std::unique_ptr<JsonStream>> OpenStream(absl::string_view method,
                                                         absl::string_view json,
                                                         absl::string_view authorization,
                                                         int64_t resume_after);

  // Cancels the open streams and refuses new calls (UNAVAILABLE), so the
  // HTTP server's threads can finish before the gRPC server stops.
  void Shutdown();

 private:
  friend class JsonStream;
  // Registers a stream's context so that Shutdown can cancel it; an error
  // when shutting down or at --http-max-streams.
  absl::Status Open(grpc::ClientContext* context);
  void Close(grpc::ClientContext* context);

  const std::shared_ptr<grpc::Channel> channel_;
  const GatewayOptions options_;
  absl::Mutex mu_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  absl::flat_hash_set<grpc::ClientContext*> streams_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_JSON_GATEWAY_H_
