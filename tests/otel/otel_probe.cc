// otel_probe: a tiny program that exports spans through taskboard_otel as a
// service would, for the interop test with real OpenTelemetry code
// (otlp_interop.test.mjs). Configured by the standard OTEL_* environment; with
// --traceparent (and --tracestate) its spans join the caller's trace.
//
// It makes a SERVER span `probe.work` carrying one attribute of every type
// and an event, with a CLIENT child `probe.child` that ends in error, shuts
// the exporter down (which flushes), and prints one JSON line: the ids, the
// traceparent it would send on, whether it sampled, and the export counts.
// Exit status 1 when an argument is wrong or a span was not accounted for.

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "common/otel/traceparent.h"
#include "common/otel/tracing.h"
#include "common/otel/tracing_environment.h"

namespace {

using namespace taskboard::otel;  // NOLINT: a test program

int Run(int argc, char** argv) {
  std::string traceparent;
  std::string tracestate;
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if ((arg == "--traceparent" || arg == "--tracestate") && i + 1 < argc) {
      (arg == "--traceparent" ? traceparent : tracestate) = argv[++i];
    } else {
      std::cerr << "usage: otel_probe [--traceparent VALUE] [--tracestate VALUE]\n";
      return 1;
    }
  }
  TracingEnvironment env = TracingOptionsFromEnvironment(ProcessEnvironment(), "otel-probe");
  for (const std::string& warning : env.warnings) std::cerr << "otel_probe: " << warning << "\n";
  absl::StatusOr<std::unique_ptr<Tracing>> tracing = Tracing::Create(env.options);
  if (!tracing.ok()) {
    std::cerr << "otel_probe: " << tracing.status() << "\n";
    return 1;
  }
  const std::optional<SpanContext> parent = ExtractTraceContext(traceparent, tracestate);
  const Tracer& tracer = (*tracing)->tracer();

  Span work = tracer.StartSpan("probe.work", parent ? &*parent : nullptr, SpanKind::kServer);
  work.SetAttribute("probe.string", "hello")
      .SetAttribute("probe.int", int64_t{42})
      .SetAttribute("probe.double", 2.5)
      .SetAttribute("probe.bool", true)
      .SetAttribute("probe.array", std::vector<std::string>{"a", "b"});
  work.AddEvent("probe.event", {{"probe.step", int64_t{1}}});
  Span child = tracer.StartSpan("probe.child", &work.context(), SpanKind::kClient);
  child.SetStatus(SpanStatusCode::kError, "probe failure");
  const SpanContext work_context = work.context();
  const SpanContext child_context = child.context();
  child.End();
  work.SetStatus(SpanStatusCode::kOk);
  work.End();

  (*tracing)->Shutdown(absl::Seconds(10));
  const ExportStats stats = (*tracing)->stats();
  taskboard::Json line = {
      {"trace_id", work_context.trace_id.Hex()},
      {"work_span_id", work_context.span_id.Hex()},
      {"child_span_id", child_context.span_id.Hex()},
      {"traceparent", FormatTraceparent(work_context)},
      {"sampled", work_context.sampled()},
      {"enabled", (*tracing)->enabled()},
      {"exported", stats.exported},
      {"dropped", stats.dropped()},
  };
  std::cout << taskboard::DumpJson(line) << std::endl;
  const int64_t expected = work_context.sampled() && (*tracing)->enabled() ? 2 : 0;
  return stats.exported + stats.dropped() == expected ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return Run(argc, argv); }
