#include "common/otel/tracing.h"

#include <utility>

namespace taskboard::otel {

absl::StatusOr<std::unique_ptr<Tracing>> Tracing::Create(TracingOptions options,
                                                         ExportCounters* counters,
                                                         std::unique_ptr<OtlpTransport> transport) {
  std::unique_ptr<Tracing> tracing(new Tracing());
  if (options.enabled()) {
    OtlpExporterOptions exporter_options{
        .url = options.traces_url,
        .headers = options.headers,
        .timeout = options.export_timeout,
        .retry = options.retry,
        .resource = options.resource,
        .scope = options.scope,
    };
    auto exporter = std::make_unique<OtlpHttpExporter>(std::move(exporter_options),
                                                       std::move(transport), counters);
    absl::StatusOr<std::unique_ptr<BatchSpanProcessor>> processor =
        BatchSpanProcessor::Create(options.batch, std::move(exporter), counters);
    if (!processor.ok()) return processor.status();
    tracing->processor_ = *std::move(processor);
  }
  tracing->tracer_ =
      std::make_unique<Tracer>(Sampler(options.sampler), tracing->processor_.get(), options.limits);
  return tracing;
}

Tracing::~Tracing() { Shutdown(absl::ZeroDuration()); }

bool Tracing::Flush(absl::Duration timeout) {
  return processor_ == nullptr || processor_->Flush(timeout);
}

void Tracing::Shutdown(absl::Duration timeout) {
  if (processor_ != nullptr) processor_->Shutdown(timeout);
}

ExportStats Tracing::stats() const {
  return processor_ != nullptr ? processor_->stats() : ExportStats{};
}

}  // namespace taskboard::otel
