#include "scheduler/server/caller_trace_context.h"

#include "absl/strings/string_view.h"
#include "common/otel/traceparent.h"
#include "scheduler/server/client_metadata.h"

namespace taskboard::server {
std::optional<otel::SpanContext> CallerTraceContext(const grpc::ServerContextBase& context) {
  const absl::string_view traceparent = ClientMetadata(context, "traceparent");
  if (traceparent.empty()) return std::nullopt;
  return otel::ExtractTraceContext(traceparent, ClientMetadata(context, "tracestate"));
}

}  // namespace taskboard::server
