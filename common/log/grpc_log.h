#ifndef TASKBOARD_COMMON_LOG_GRPC_LOG_H_
#define TASKBOARD_COMMON_LOG_GRPC_LOG_H_

// Routes gRPC's own diagnostics (gpr_log: a port that cannot be bound, a
// failed TLS handshake) into the structured log, so that every line a service
// writes on stderr is one of ours, with "source":"grpc", "file" and "line".
// gRPC still decides which of its messages to emit (GRPC_VERBOSITY, errors
// only by default); our --log-level then applies as to any line.
//
// A library of its own (taskboard_log_grpc) so taskboard_log, used by core
// logic, stays free of gRPC.

namespace taskboard::log {

// Call once in main(), before gRPC starts threads.
void RouteGrpcLogs();

}  // namespace taskboard::log

#endif  // TASKBOARD_COMMON_LOG_GRPC_LOG_H_
