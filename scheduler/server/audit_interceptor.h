#ifndef TASKBOARD_SCHEDULER_SERVER_AUDIT_INTERCEPTOR_H_
#define TASKBOARD_SCHEDULER_SERVER_AUDIT_INTERCEPTOR_H_

// Turns calls into audit records (docs/audit.md) when their status goes out:
// the state-changing calls of audited_calls.h with their outcome, and a call
// of any of our services that the token check refused, as refused. One
// place for the gRPC port and the HTTP API, whose calls come through the
// in-process channel (scheduler/web/json_gateway.h) and name the HTTP
// client in a header believed only on that channel (http_peer.h).
//
// Why an interceptor beside CallGate::Admit: the gate decides, but only the
// interceptor sees a call's final status and its response (the run id
// SubmitRun made) whichever way the handler finished. The interceptor
// identifies the caller with the same Authenticator the gate admitted it
// with.
//
// Thread-safe: gRPC runs interceptors on its threads.

#include <memory>

#include "grpcpp/support/server_interceptor.h"
#include "scheduler/audit/audit_recorder.h"
#include "scheduler/auth/authenticator.h"

namespace taskboard::server {

// A factory for ServerBuilder::experimental().SetInterceptorCreators;
// `recorder` and `authenticator` (null: authentication off) outlive the
// server.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> AuditInterceptorFactory(
    audit::AuditRecorder* recorder, const auth::Authenticator* authenticator);

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_AUDIT_INTERCEPTOR_H_
