// What tracing costs the thread that makes a span (docs/observability.md#cost):
// StartSpan, a task attempt's worth of attributes and an event, End, and the
// push into the batch processor's bounded queue, with the exporter pointing
// at
//   Off           no endpoint: spans carry context only (tracing disabled)
//   Unsampled     an endpoint, but the sampler says no (ratio 0)
//   DeadEndpoint  a port that refuses connections: the queue fills and every
//                 later span is dropped and counted (queue_full)
//   LiveReceiver  an in-process OTLP/HTTP receiver (cpp-httplib) answering
//                 200: the export thread sends batches while the loop runs,
//                 and spans beyond what it keeps up with are dropped
// plus the W3C traceparent parse and format a request or assignment pays,
// and what the export thread can send: a batch of task-attempt spans encoded
// as OTLP protobuf (Encode), and encoded and POSTed to the live receiver
// (Export), per span.
// Counters: exported and dropped spans per span made, from the processor's
// own counts after a flush; bytes per span of the encoded batch.
//
//   build/bin/otel_bench

#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "common/otel/otlp_encoding.h"
#include "common/otel/otlp_http_exporter.h"
#include "common/otel/traceparent.h"
#include "common/otel/tracing.h"
#include "tools/bench/otlp_endpoints.h"

namespace taskboard::otel {
namespace {

using ::taskboard::bench::Receiver;
using ::taskboard::bench::RefusingPort;

enum class Target { kOff, kUnsampled, kDead, kLive };

// A task attempt's span: what the worker will record per task.
void MakeSpan(const Tracer& tracer, const SpanContext& parent, int64_t i) {
  Span span = tracer.StartSpan("task.attempt", &parent, SpanKind::kConsumer);
  span.SetAttribute("taskboard.run_id", "run-0123456789abcdef")
      .SetAttribute("taskboard.task_id", "build")
      .SetAttribute("taskboard.agent", "shell")
      .SetAttribute("taskboard.attempt", i)
      .SetAttribute("taskboard.worker", "worker-1");
  span.AddEvent("dispatched");
  span.SetStatus(SpanStatusCode::kOk);
  span.End();
}

void BM_SpanStartEndEnqueue(benchmark::State& state) {
  const auto target = static_cast<Target>(state.range(0));
  std::unique_ptr<RefusingPort> dead;
  std::unique_ptr<Receiver> live;
  TracingOptions options;
  options.sampler = {.parent_based = true, .ratio = 1.0};
  switch (target) {
    case Target::kOff:
      break;
    case Target::kUnsampled:
      dead = std::make_unique<RefusingPort>();
      options.traces_url = dead->url();
      options.sampler.ratio = 0.0;
      break;
    case Target::kDead:
      dead = std::make_unique<RefusingPort>();
      options.traces_url = dead->url();
      break;
    case Target::kLive:
      live = std::make_unique<Receiver>();
      options.traces_url = live->url();
      break;
  }
  std::unique_ptr<Tracing> tracing = *Tracing::Create(options);
  // The run's span context, as received with the assignment; its sampled
  // flag is what the ratio sampler would have said at the run's root.
  SpanContext parent;
  parent.trace_id = NewTraceId();
  parent.span_id = NewSpanId();
  parent.trace_flags = target == Target::kUnsampled ? 0 : kSampledFlag;
  parent.remote = true;
  int64_t i = 0;
  for (auto _ : state) MakeSpan(tracing->tracer(), parent, ++i);
  tracing->Flush(absl::Seconds(30));
  tracing->Shutdown(absl::Seconds(5));
  const ExportStats stats = tracing->stats();
  const double made = static_cast<double>(state.iterations());
  state.counters["exported_per_span"] = static_cast<double>(stats.exported) / made;
  state.counters["dropped_per_span"] = static_cast<double>(stats.dropped()) / made;
}
BENCHMARK(BM_SpanStartEndEnqueue)
    ->ArgName("target")
    ->Arg(static_cast<int>(Target::kOff))
    ->Arg(static_cast<int>(Target::kUnsampled))
    ->Arg(static_cast<int>(Target::kDead))
    ->Arg(static_cast<int>(Target::kLive))
    ->UseRealTime();

// `count` ended task-attempt spans, as the export thread takes them.
std::vector<SpanData> AttemptSpans(int count) {
  struct Collect : SpanSink {
    void OnEnd(SpanData span) override { spans.push_back(std::move(span)); }
    std::vector<SpanData> spans;
  } sink;
  const Tracer tracer(Sampler(), &sink);
  SpanContext parent;
  parent.trace_id = NewTraceId();
  parent.span_id = NewSpanId();
  parent.trace_flags = kSampledFlag;
  for (int i = 0; i < count; ++i) MakeSpan(tracer, parent, i);
  return std::move(sink.spans);
}

Resource BenchResource() {
  return {{{"service.name", std::string("taskboard-worker")},
           {"telemetry.sdk.name", std::string("taskboard")},
           {"telemetry.sdk.language", std::string("cpp")}}};
}

void BM_EncodeBatch(benchmark::State& state) {
  const std::vector<SpanData> spans = AttemptSpans(static_cast<int>(state.range(0)));
  const Resource resource = BenchResource();
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string body = EncodeExportRequest(resource, InstrumentationScope{}, spans);
    bytes = body.size();
    benchmark::DoNotOptimize(body.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["bytes_per_span"] = static_cast<double>(bytes) / state.range(0);
}
BENCHMARK(BM_EncodeBatch)->ArgName("spans")->Arg(512);

void BM_ExportBatch(benchmark::State& state) {
  const std::vector<SpanData> spans = AttemptSpans(static_cast<int>(state.range(0)));
  Receiver receiver;
  OtlpHttpExporter exporter({.url = receiver.url(), .resource = BenchResource()}, nullptr, nullptr);
  const absl::Notification never;
  int64_t exported = 0;
  for (auto _ : state) exported += exporter.Export(spans, never).exported;
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["exported_per_span"] =
      static_cast<double>(exported) / static_cast<double>(state.iterations() * state.range(0));
}
BENCHMARK(BM_ExportBatch)->ArgName("spans")->Arg(512)->UseRealTime();

void BM_ParseTraceparent(benchmark::State& state) {
  const std::string header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  for (auto _ : state) benchmark::DoNotOptimize(ParseTraceparent(header));
}
BENCHMARK(BM_ParseTraceparent);

void BM_FormatTraceparent(benchmark::State& state) {
  SpanContext context;
  context.trace_id = NewTraceId();
  context.span_id = NewSpanId();
  context.trace_flags = kSampledFlag;
  for (auto _ : state) benchmark::DoNotOptimize(FormatTraceparent(context));
}
BENCHMARK(BM_FormatTraceparent);

}  // namespace
}  // namespace taskboard::otel

BENCHMARK_MAIN();
