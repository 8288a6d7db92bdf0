#include "scheduler/server/call_gate.h"

#include "absl/strings/str_cat.h"

namespace taskboard::server {

std::string SchedulerMethod(absl::string_view name) {
  return absl::StrCat("/taskboard.v1.Scheduler/", name);
}

absl::StatusOr<auth::Caller> CallGate::Admit(const grpc::CallbackServerContext& context,
                                             absl::string_view method,
                                             const google::protobuf::MessageLite* request) const {
  auth::Caller caller;
  if (options_.authenticator != nullptr) {
    absl::string_view authorization;
    const auto& metadata = context.client_metadata();
    if (auto it = metadata.find("authorization"); it != metadata.end()) {
      authorization = absl::string_view(it->second.data(), it->second.size());
    }
    absl::StatusOr<auth::Principal> principal =
        options_.authenticator->Admit(authorization, method);
    if (!principal.ok()) return principal.status();
    caller.principal = *std::move(principal);
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
