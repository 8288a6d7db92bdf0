#ifndef TASKBOARD_COMMON_OTEL_TRACING_OPTIONS_H_
#define TASKBOARD_COMMON_OTEL_TRACING_OPTIONS_H_

// Everything that sets up a process's tracing (tracing.h): where spans go,
// how they are batched, retried, sampled and bounded, and the resource they
// are reported under. Filled from the OTEL_* environment
// (tracing_environment.h), then from the services' flags (--otlp-endpoint).

#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "common/otel/attributes.h"
#include "common/otel/batch_span_processor.h"
#include "common/otel/export_retry.h"
#include "common/otel/otlp_encoding.h"
#include "common/otel/sampler.h"

namespace taskboard::otel {

struct TracingOptions {
  // The full traces URL (<endpoint>/v1/traces). Empty: tracing is off, no
  // span is recorded, and received trace contexts still pass through.
  std::string traces_url;
  // Extra request headers (OTEL_EXPORTER_OTLP_HEADERS), name and value.
  std::vector<std::pair<std::string, std::string>> headers;
  // One export attempt (OTEL_EXPORTER_OTLP_TIMEOUT).
  absl::Duration export_timeout = absl::Seconds(10);
  // Retries of a batch; max_elapsed is OTEL_BSP_EXPORT_TIMEOUT.
  RetryPolicy retry;
  BatchOptions batch;
  // parentbased_always_on unless OTEL_TRACES_SAMPLER says otherwise.
  SamplerConfig sampler;
  SpanLimits limits;
  // service.name first, then OTEL_RESOURCE_ATTRIBUTES and telemetry.sdk.*.
  Resource resource;
  InstrumentationScope scope;

  bool enabled() const { return !traces_url.empty(); }
};

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_TRACING_OPTIONS_H_
