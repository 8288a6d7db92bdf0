#include "scheduler/server/audit_interceptor.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/server_context.h"
#include "scheduler/auth/method_roles.h"
#include "scheduler/server/audited_calls.h"
#include "scheduler/server/client_metadata.h"
#include "scheduler/server/grpc_status.h"
#include "scheduler/server/http_peer.h"

namespace taskboard::server {
namespace {

using grpc::experimental::InterceptionHookPoints;

// Our services; health checking and reflection are never refused.
bool IsOurs(absl::string_view method) {
  return absl::StartsWith(method, "/taskboard.v1.") ||
         absl::StartsWith(method, "/taskboard.ha.v1.");
}

class AuditInterceptor final : public grpc::experimental::Interceptor {
 public:
  AuditInterceptor(grpc::experimental::ServerRpcInfo* info, audit::AuditRecorder* recorder,
                   const auth::Authenticator* authenticator, const AuditedCall* audited)
      : info_(info), recorder_(recorder), authenticator_(authenticator), audited_(audited) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (audited_ != nullptr) {
      if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE) &&
          audited_->from_request != nullptr && methods->GetRecvMessage() != nullptr) {
        audited_->from_request(methods->GetRecvMessage(), facts_);
      }
      if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_MESSAGE) &&
          audited_->from_response != nullptr && methods->GetSendMessage() != nullptr) {
        audited_->from_response(methods->GetSendMessage(), facts_);
      }
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      Finished(FromGrpcStatus(methods->GetSendStatus()));
    }
    methods->Proceed();
  }

 private:
  void Finished(const absl::Status& status) {
    const grpc::ServerContextBase& context = *info_->server_context();
    v1::AuditEvent event;
    event.set_method(AuditMethodName(info_->method()));
    event.set_target(facts_.target);
    event.set_detail(facts_.detail);
    std::string peer = context.peer();
    // Only the scheduler's own HTTP API calls over the in-process channel,
    // whose peer gRPC does not know ("unknown"); a network peer always has
    // an address.
    if (peer.empty() || peer == "unknown" || absl::StartsWith(peer, "inproc")) {
      if (absl::string_view http = ClientMetadata(context, kHttpPeerHeader); !http.empty()) {
        peer = absl::StrCat("http:", http);
      }
    }
    event.set_peer(std::move(peer));
    if (authenticator_ == nullptr) {
      if (audited_ == nullptr) return;
      audit::SetOutcome(status, /*refused=*/false, event);
      recorder_->Record(std::move(event));
      return;
    }
    const absl::string_view authorization = ClientMetadata(context, "authorization");
    absl::StatusOr<auth::Principal> identified = authenticator_->Identify(authorization);
    if (identified.ok()) {
      event.set_actor(identified->name);
      event.set_role(std::string(auth::RoleName(identified->role)));
      event.set_tenant(identified->tenant);
    }
    const absl::Status admitted =
        identified.ok() ? auth::CheckRole(*identified, info_->method()) : identified.status();
    if (!admitted.ok()) {
      // Refused by the token check, which the handler's own status repeats.
      if (!IsOurs(info_->method()) || status.code() != admitted.code()) return;
      audit::SetOutcome(status, /*refused=*/true, event);
      recorder_->RecordRefused(std::move(event), identified.ok());
      return;
    }
    if (audited_ == nullptr) return;
    audit::SetOutcome(status, /*refused=*/false, event);
    recorder_->Record(std::move(event));
  }

  grpc::experimental::ServerRpcInfo* const info_;
  audit::AuditRecorder* const recorder_;
  const auth::Authenticator* const authenticator_;
  const AuditedCall* const audited_;
  AuditFacts facts_;
};

class AuditInterceptorFactoryImpl final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  AuditInterceptorFactoryImpl(audit::AuditRecorder* recorder,
                              const auth::Authenticator* authenticator)
      : recorder_(recorder), authenticator_(authenticator) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    const absl::string_view method = info->method() == nullptr ? "" : info->method();
    const AuditedCall* audited = FindAuditedCall(method);
    // Without tokens nothing is refused: only the audited calls matter.
    if (audited == nullptr && (authenticator_ == nullptr || !IsOurs(method))) return nullptr;
    return new AuditInterceptor(info, recorder_, authenticator_, audited);
  }

 private:
  audit::AuditRecorder* const recorder_;
  const auth::Authenticator* const authenticator_;
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> AuditInterceptorFactory(
    audit::AuditRecorder* recorder, const auth::Authenticator* authenticator) {
  return std::make_unique<AuditInterceptorFactoryImpl>(recorder, authenticator);
}

}  // namespace taskboard::server
