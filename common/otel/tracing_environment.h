#ifndef TASKBOARD_COMMON_OTEL_TRACING_ENVIRONMENT_H_
#define TASKBOARD_COMMON_OTEL_TRACING_ENVIRONMENT_H_

// TracingOptions from the OpenTelemetry SDK's standard environment variables
// (docs/observability.md#environment-variables lists them): the OTLP
// endpoint, headers and timeout, OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES, the sampler, the batch processor's OTEL_BSP_*
// and the span limits, OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none.
// As the specification says, an empty variable counts as unset, and a value
// that cannot be used is reported and ignored (its default applies) rather
// than failing the process. Pure given the lookup; thread-safe.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/otel/tracing_options.h"

namespace taskboard::otel {

// A variable's value, or nullopt when it is not set.
using EnvironmentLookup = std::function<std::optional<std::string>(absl::string_view name)>;

// The process's environment (getenv).
EnvironmentLookup ProcessEnvironment();

struct TracingEnvironment {
  TracingOptions options;
  // One line per value ignored, naming the variable and why, for the
  // service's log at start.
  std::vector<std::string> warnings;
};

// `default_service_name` ("taskboard-scheduler") is service.name unless
// OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES sets it. Tracing is on only
// when an endpoint variable is set: unlike the OTel SDKs, no default
// localhost:4318 collector is assumed.
TracingEnvironment TracingOptionsFromEnvironment(const EnvironmentLookup& env,
                                                 absl::string_view default_service_name);

// `base` + "/v1/traces", with exactly one '/' between them.
std::string TracesUrlFromBase(absl::string_view base);

// The --otlp-endpoint flag: a base URL like OTEL_EXPORTER_OTLP_ENDPOINT,
// taking precedence over both endpoint variables; "" leaves `options` as
// they are. INVALID_ARGUMENT unless it is an http:// or https:// URL with a
// host.
absl::Status ApplyOtlpEndpointFlag(absl::string_view endpoint, TracingOptions& options);

// A service's tracing flags, applied over its environment.
struct ServiceTracingFlags {
  // --otlp-endpoint (ApplyOtlpEndpointFlag); "" leaves the environment's.
  std::string otlp_endpoint;
  // --trace-sample-ratio: the share of new traces (root spans) sampled, as
  // parentbased_traceidratio; nullopt leaves OTEL_TRACES_SAMPLER's sampler.
  std::optional<double> sample_ratio;
};

// What every Taskboard service runs at start: the OTEL_* environment
// (TracingOptionsFromEnvironment), then its flags, which win. Errors:
// INVALID_ARGUMENT for an --otlp-endpoint that is not an http(s) URL with a
// host, or a ratio outside [0, 1], naming the flag (the service does not
// start: a flag is the operator's explicit ask, unlike a variable).
absl::StatusOr<TracingEnvironment> TracingForService(const EnvironmentLookup& env,
                                                     absl::string_view default_service_name,
                                                     const ServiceTracingFlags& flags);

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_TRACING_ENVIRONMENT_H_
