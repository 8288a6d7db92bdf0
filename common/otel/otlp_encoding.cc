#include "common/otel/otlp_encoding.h"

#include <type_traits>
#include <variant>

namespace taskboard::otel {
namespace {

namespace common_pb = opentelemetry::proto::common::v1;
namespace trace_pb = opentelemetry::proto::trace::v1;

// OTLP Span.flags bits 8 and 9: whether the parent is known to be remote.
constexpr uint32_t kContextHasIsRemote = trace_pb::SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK;
constexpr uint32_t kContextIsRemote = trace_pb::SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK;

void SetValue(const AttributeValue& value, common_pb::AnyValue* out) {
  std::visit(
      [out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          out->set_string_value(v);
        } else if constexpr (std::is_same_v<T, int64_t>) {
          out->set_int_value(v);
        } else if constexpr (std::is_same_v<T, double>) {
          out->set_double_value(v);
        } else if constexpr (std::is_same_v<T, bool>) {
          out->set_bool_value(v);
        } else {
          common_pb::ArrayValue* array = out->mutable_array_value();
          for (const std::string& item : v) array->add_values()->set_string_value(item);
        }
      },
      value);
}

template <typename Repeated>
void AddAttributes(const std::vector<Attribute>& attributes, Repeated* out) {
  out->Reserve(static_cast<int>(attributes.size()));
  for (const Attribute& attribute : attributes) {
    common_pb::KeyValue* key_value = out->Add();
    key_value->set_key(attribute.key);
    SetValue(attribute.value, key_value->mutable_value());
  }
}

void FillSpan(const SpanData& span, trace_pb::Span* out) {
  out->set_trace_id(span.context.trace_id.Bytes().data(), span.context.trace_id.Bytes().size());
  out->set_span_id(span.context.span_id.Bytes().data(), span.context.span_id.Bytes().size());
  if (!span.context.trace_state.empty()) out->set_trace_state(span.context.trace_state);
  if (span.parent_span_id.IsValid()) {
    out->set_parent_span_id(span.parent_span_id.Bytes().data(), span.parent_span_id.Bytes().size());
  }
  out->set_flags(span.context.trace_flags | kContextHasIsRemote |
                 (span.parent_remote ? kContextIsRemote : 0));
  out->set_name(span.name);
  out->set_kind(static_cast<trace_pb::Span::SpanKind>(span.kind));
  out->set_start_time_unix_nano(static_cast<uint64_t>(span.start_unix_nanos));
  out->set_end_time_unix_nano(static_cast<uint64_t>(span.end_unix_nanos));
  AddAttributes(span.attributes.items, out->mutable_attributes());
  out->set_dropped_attributes_count(span.attributes.dropped);
  for (const SpanEvent& event : span.events) {
    trace_pb::Span::Event* out_event = out->add_events();
    out_event->set_time_unix_nano(static_cast<uint64_t>(event.time_unix_nanos));
    out_event->set_name(event.name);
    AddAttributes(event.attributes.items, out_event->mutable_attributes());
    out_event->set_dropped_attributes_count(event.attributes.dropped);
  }
  out->set_dropped_events_count(span.dropped_events);
  if (span.status != SpanStatusCode::kUnset) {
    trace_pb::Status* status = out->mutable_status();
    status->set_code(static_cast<trace_pb::Status::StatusCode>(span.status));
    status->set_message(span.status_message);
  }
}

}  // namespace

opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest BuildExportRequest(
    const Resource& resource, const InstrumentationScope& scope, absl::Span<const SpanData> spans) {
  opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest request;
  trace_pb::ResourceSpans* resource_spans = request.add_resource_spans();
  AddAttributes(resource.attributes, resource_spans->mutable_resource()->mutable_attributes());
  trace_pb::ScopeSpans* scope_spans = resource_spans->add_scope_spans();
  scope_spans->mutable_scope()->set_name(scope.name);
  if (!scope.version.empty()) scope_spans->mutable_scope()->set_version(scope.version);
  scope_spans->mutable_spans()->Reserve(static_cast<int>(spans.size()));
  for (const SpanData& span : spans) FillSpan(span, scope_spans->add_spans());
  return request;
}

std::string EncodeExportRequest(const Resource& resource, const InstrumentationScope& scope,
                                absl::Span<const SpanData> spans) {
  return BuildExportRequest(resource, scope, spans).SerializeAsString();
}

}  // namespace taskboard::otel
