#ifndef TASKBOARD_SCHEDULER_SERVER_HTTP_PEER_H_
#define TASKBOARD_SCHEDULER_SERVER_HTTP_PEER_H_

// How the scheduler's HTTP API tells its own gRPC service who the HTTP
// client is (docs/audit.md#fields): the gateway (scheduler/web/json_gateway.h)
// sends the client's address in this header on the in-process channel, and
// the audit interceptor (audit_interceptor.h) believes it only on that
// channel, so a network client cannot claim another address.

namespace taskboard::server {

inline constexpr char kHttpPeerHeader[] = "taskboard-http-peer";

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_HTTP_PEER_H_
