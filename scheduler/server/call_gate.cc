#include "scheduler/server/call_gate.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/server/client_metadata.h"

namespace taskboard::server {

std::string SchedulerMethod(absl::string_view name) {
  return absl::StrCat("/taskboard.v1.Scheduler/", name);
}

namespace {

// The `authorization` header's value; "" when absent.
absl::string_view Authorization(const grpc::CallbackServerContext& context) {
  return ClientMetadata(context, "authorization");
}

}  // namespace

uint64_t CallGate::Track(const grpc::CallbackServerContext& context, absl::string_view method,
                         OpenStreams::Closer close) const {
  if (options_.authenticator == nullptr) return 0;
  return streams_.Add(std::string(Authorization(context)), std::string(method), std::move(close));
}

void CallGate::Untrack(uint64_t id) const {
  if (id != 0) streams_.Remove(id);
}

int CallGate::CloseRevoked() const {
  if (options_.authenticator == nullptr) return 0;
  return streams_.CloseRevoked(*options_.authenticator);
}

absl::StatusOr<auth::Caller> CallGate::Authenticate(const grpc::CallbackServerContext& context,
                                                    absl::string_view method) const {
  auth::Caller caller;
  if (options_.authenticator != nullptr) {
    absl::StatusOr<auth::Principal> principal =
        options_.authenticator->Admit(Authorization(context), method);
    if (!principal.ok()) return principal.status();
    caller.principal = *std::move(principal);
  }
  return caller;
}

absl::StatusOr<auth::Caller> CallGate::Admit(grpc::CallbackServerContext& context,
                                             absl::string_view method,
                                             const google::protobuf::MessageLite* request) const {
  absl::StatusOr<auth::Caller> authenticated = Authenticate(context, method);
  if (!authenticated.ok()) return authenticated.status();
  return AdmitAs(*std::move(authenticated), context, method, request);
}

absl::StatusOr<auth::Caller> CallGate::AdmitSigned(
    grpc::CallbackServerContext& context, absl::string_view method,
    const google::protobuf::MessageLite* request) const {
  return AdmitAs(auth::Caller{}, context, method, request);
}

absl::StatusOr<auth::Caller> CallGate::AdmitAs(auth::Caller caller,
                                               grpc::CallbackServerContext& context,
                                               absl::string_view method,
                                               const google::protobuf::MessageLite* request) const {
  // After the token: only an admitted caller learns where the leader is.
  if (options_.leader != nullptr) {
    if (absl::Status leading = options_.leader->CheckLeader(); !leading.ok()) {
      if (std::optional<v1::NotLeader> hint = NotLeaderOf(leading);
          hint.has_value() && !hint->leader_grpc().empty()) {
        context.AddTrailingMetadata(kLeaderTrailer, hint->leader_grpc());
      }
      return leading;
    }
  }
  if (request != nullptr && options_.max_request_bytes > 0) {
    const size_t bytes = request->ByteSizeLong();
    if (static_cast<int64_t>(bytes) > options_.max_request_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the request to ", method, " is ", bytes, " bytes, over the scheduler's limit of ",
          options_.max_request_bytes,
          " (--max-request-bytes); send a smaller request, or ask the operator to raise "
          "--max-request-bytes"));
    }
  }
  return caller;
}

}  // namespace taskboard::server
