#ifndef TASKBOARD_COMMON_OTEL_OTLP_ENCODING_H_
#define TASKBOARD_COMMON_OTEL_OTLP_ENCODING_H_

// Spans as an OTLP ExportTraceServiceRequest: one ResourceSpans for this
// process (service.name and the resource attributes) holding one ScopeSpans
// for Taskboard's instrumentation. The messages are generated from
// common/otel/proto, OTLP v1's definitions. Pure functions; thread-safe.

#include <string>
#include <vector>

#include "absl/types/span.h"
#include "common/otel/attributes.h"
#include "common/otel/span_data.h"
#include "opentelemetry/proto/collector/trace/v1/trace_service.pb.h"

namespace taskboard::otel {

// The process the spans come from: OTel resource attributes, service.name
// among them.
struct Resource {
  std::vector<Attribute> attributes;
};

// The instrumentation scope every Taskboard span is reported under.
struct InstrumentationScope {
  std::string name = "taskboard";
  std::string version;
};

opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest BuildExportRequest(
    const Resource& resource, const InstrumentationScope& scope, absl::Span<const SpanData> spans);

// BuildExportRequest, serialized: the body of a POST to /v1/traces.
std::string EncodeExportRequest(const Resource& resource, const InstrumentationScope& scope,
                                absl::Span<const SpanData> spans);

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_OTLP_ENCODING_H_
