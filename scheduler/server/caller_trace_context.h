#ifndef TASKBOARD_SCHEDULER_SERVER_CALLER_TRACE_CONTEXT_H_
#define TASKBOARD_SCHEDULER_SERVER_CALLER_TRACE_CONTEXT_H_

// The caller's W3C trace context, from a call's `traceparent` and
// `tracestate` metadata (the HTTP API passes its request's headers on as
// these; docs/observability.md#trace-context). SubmitRun makes the run's span
// a child of it.

#include <optional>

#include "common/otel/span_context.h"
#include "grpcpp/server_context.h"

namespace taskboard::server {

// The parsed context (remote), or nullopt when the call carries no
// traceparent or one that does not parse: the run then starts a trace of its
// own, as the W3C recommendation says for an invalid header.
std::optional<otel::SpanContext> CallerTraceContext(const grpc::ServerContextBase& context);

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_CALLER_TRACE_CONTEXT_H_
