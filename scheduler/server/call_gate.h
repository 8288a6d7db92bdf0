#ifndef TASKBOARD_SCHEDULER_SERVER_CALL_GATE_H_
#define TASKBOARD_SCHEDULER_SERVER_CALL_GATE_H_

// Admits a call before its handler does anything else: the bearer token and
// the caller's role (when --auth-tokens is set, scheduler/auth/), whether
// this replica leads (engine_handle.h; a follower answers NotLeader), and the
// request's size (--max-request-bytes). Every handler of the Scheduler,
// WorkerGateway and Backup services starts with Admit.
//
// Why in the handlers and not in a server interceptor: gRPC C++ server
// interceptors cannot end a call with a status (grpc/grpc#24017), and an
// AuthMetadataProcessor only runs on TLS ports (grpc/grpc#28807), while
// tokens must also work on plaintext ports behind a TLS-terminating proxy.
// Health checking and reflection have no handler of ours, so they stay open.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message_lite.h"
#include "grpcpp/server_context.h"
#include "scheduler/auth/authenticator.h"
#include "scheduler/auth/principal.h"
#include "scheduler/server/engine_handle.h"
#include "scheduler/server/open_streams.h"

namespace taskboard::server {

struct CallGateOptions {
  // Null: authentication is off; every call is admitted and sees every
  // tenant. Outlives the gate.
  const auth::Authenticator* authenticator = nullptr;
  // Client API requests larger than this are refused; 0: no limit of ours.
  int64_t max_request_bytes = 0;
  // Null: every call is served (tests of a service alone). Otherwise calls
  // are served only once it is published. Outlives the gate.
  const EngineHandle* leader = nullptr;
};

class CallGate {
 public:
  explicit CallGate(CallGateOptions options) : options_(options) {}

  // The caller of `method` (the gRPC name, "/taskboard.v1.Scheduler/GetRun"):
  // UNAUTHENTICATED or PERMISSION_DENIED (auth::Authenticator::Admit);
  // UNAVAILABLE with a NotLeader detail on a replica that does not lead,
  // adding the trailer `taskboard-leader` to `context` when the leader is
  // known; or RESOURCE_EXHAUSTED naming --max-request-bytes for a `request`
  // over the limit (null `request`: not checked, e.g. streams).
  absl::StatusOr<auth::Caller> Admit(grpc::CallbackServerContext& context, absl::string_view method,
                                     const google::protobuf::MessageLite* request) const;

  // Admit without a token, for an event whose signature the engine checks
  // against its triggers' secrets (PublishEvent with X-Hub-Signature-256;
  // docs/schedules.md#who-may-publish): the leader and size checks only. The
  // caller has no principal.
  absl::StatusOr<auth::Caller> AdmitSigned(grpc::CallbackServerContext& context,
                                           absl::string_view method,
                                           const google::protobuf::MessageLite* request) const;

  // The token and the role only, for a call any replica answers about
  // itself whether it leads or not (`taskboard admin ha status`).
  absl::StatusOr<auth::Caller> Authenticate(const grpc::CallbackServerContext& context,
                                            absl::string_view method) const;

  bool authenticating() const { return options_.authenticator != nullptr; }

  // A long-lived stream admitted for `method`: kept with its token so that
  // CloseRevoked can end it. Returns 0, and keeps nothing, without
  // authentication. Untrack it when the stream is done.
  uint64_t Track(const grpc::CallbackServerContext& context, absl::string_view method,
                 OpenStreams::Closer close) const;
  void Untrack(uint64_t id) const;
  // After the tokens file was re-read: ends the streams whose token is no
  // longer admitted; how many.
  int CloseRevoked() const;

 private:
  // The leader and size checks, for an authenticated (or signed) caller.
  absl::StatusOr<auth::Caller> AdmitAs(auth::Caller caller, grpc::CallbackServerContext& context,
                                       absl::string_view method,
                                       const google::protobuf::MessageLite* request) const;

  CallGateOptions options_;
  mutable OpenStreams streams_;
};

// "/taskboard.v1.Scheduler/<name>".
std::string SchedulerMethod(absl::string_view name);

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_CALL_GATE_H_
