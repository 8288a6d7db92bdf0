#include "scheduler/server/caller_trace_context.h"

#include "absl/strings/string_view.h"
#include "common/otel/traceparent.h"

namespace taskboard::server {
namespace {

absl::string_view Metadata(const grpc::ServerContextBase& context, absl::string_view name) {
  const auto& metadata = context.client_metadata();
  auto found = metadata.find(grpc::string_ref(name.data(), name.size()));
  if (found == metadata.end()) return {};
  return {found->second.data(), found->second.size()};
}

}  // namespace

std::optional<otel::SpanContext> CallerTraceContext(const grpc::ServerContextBase& context) {
  const absl::string_view traceparent = Metadata(context, "traceparent");
  if (traceparent.empty()) return std::nullopt;
  return otel::ExtractTraceContext(traceparent, Metadata(context, "tracestate"));
}

}  // namespace taskboard::server
