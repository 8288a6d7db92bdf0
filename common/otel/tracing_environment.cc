#include "common/otel/tracing_environment.h"

#include <cstdint>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/otel/key_value_list.h"
#include "common/webhook_url.h"

namespace taskboard::otel {
namespace {

// Upper bounds on the sizes a variable may set, so that no value makes the
// queue or a span's memory unbounded.
constexpr int64_t kMaxQueueCapacity = 1 << 20;
constexpr int64_t kMaxCountLimit = 10'000;
constexpr int64_t kMaxValueBytes = 1 << 20;

class Reader {
 public:
  Reader(const EnvironmentLookup& env, std::vector<std::string>& warnings)
      : env_(env), warnings_(warnings) {}

  // The value, or nullopt when unset or empty (the spec's "empty is unset").
  std::optional<std::string> Get(absl::string_view name) const {
    std::optional<std::string> value = env_(name);
    if (value.has_value() && value->empty()) return std::nullopt;
    return value;
  }

  // The first of `names` that is set.
  std::optional<std::pair<std::string, std::string>> First(
      std::initializer_list<absl::string_view> names) const {
    for (absl::string_view name : names) {
      if (std::optional<std::string> value = Get(name)) {
        return std::make_pair(std::string(name), *std::move(value));
      }
    }
    return std::nullopt;
  }

  void Warn(absl::string_view name, absl::string_view why) {
    warnings_.push_back(absl::StrCat(name, ": ", why, "; ignored"));
  }

  // A whole number in [1, max] (larger ones are capped at max, with a
  // warning), or nullopt when unset or unusable.
  std::optional<int64_t> Positive(absl::string_view name, int64_t max) {
    std::optional<std::string> text = Get(name);
    if (!text) return std::nullopt;
    int64_t value = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &value) || value < 1) {
      Warn(name, absl::StrCat("'", *text, "' is not a positive whole number"));
      return std::nullopt;
    }
    if (value > max) {
      warnings_.push_back(absl::StrCat(name, ": ", value, " is above the most Taskboard allows, ",
                                       max, "; using ", max));
      return max;
    }
    return value;
  }

  std::optional<absl::Duration> Millis(std::initializer_list<absl::string_view> names) {
    for (absl::string_view name : names) {
      if (!Get(name)) continue;
      std::optional<int64_t> millis = Positive(name, int64_t{24} * 3600 * 1000);
      if (millis) return absl::Milliseconds(*millis);
    }
    return std::nullopt;
  }

 private:
  const EnvironmentLookup& env_;
  std::vector<std::string>& warnings_;
};

bool IsHeaderNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
         absl::StrContains("!#$%&'*+-.^_`|~", c);
}

// INVALID_ARGUMENT when a header cannot be sent as it is: a name that is
// not an HTTP token, a value with a control character (CR and LF would
// smuggle headers in). Values are not quoted in the message: they often
// hold credentials.
absl::Status CheckHeader(const std::string& name, const std::string& value) {
  for (char c : name) {
    if (!IsHeaderNameChar(c)) {
      return absl::InvalidArgumentError(absl::StrCat("header name '", name, "' is not a token"));
    }
  }
  for (char c : value) {
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) {
      return absl::InvalidArgumentError(
          absl::StrCat("the value of header '", name, "' holds a control character"));
    }
  }
  return absl::OkStatus();
}

void ReadEndpoint(Reader& reader, TracingOptions& options) {
  if (std::optional<std::string> url = reader.Get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) {
    if (absl::Status status = CheckWebhookUrl(*url); !status.ok()) {
      reader.Warn("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", status.message());
    } else {
      options.traces_url = *url;
      return;
    }
  }
  if (std::optional<std::string> base = reader.Get("OTEL_EXPORTER_OTLP_ENDPOINT")) {
    if (absl::Status status = CheckWebhookUrl(*base); !status.ok()) {
      reader.Warn("OTEL_EXPORTER_OTLP_ENDPOINT", status.message());
    } else {
      options.traces_url = TracesUrlFromBase(*base);
    }
  }
}

void ReadHeaders(Reader& reader, TracingOptions& options) {
  auto named = reader.First({"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"});
  if (!named) return;
  absl::StatusOr<KeyValueList> headers = ParseKeyValueList(named->second);
  if (!headers.ok()) {
    // The message may quote a member, value included: say only where.
    reader.Warn(named->first, "not a list of name=value pairs");
    return;
  }
  for (const auto& [name, value] : *headers) {
    if (absl::Status status = CheckHeader(name, value); !status.ok()) {
      reader.Warn(named->first, status.message());
      return;
    }
  }
  options.headers = *std::move(headers);
}

void ReadResource(Reader& reader, absl::string_view default_service_name, TracingOptions& options) {
  std::string service_name(default_service_name);
  std::vector<Attribute> others;
  if (std::optional<std::string> text = reader.Get("OTEL_RESOURCE_ATTRIBUTES")) {
    absl::StatusOr<KeyValueList> list = ParseKeyValueList(*text);
    if (!list.ok()) {
      reader.Warn("OTEL_RESOURCE_ATTRIBUTES", list.status().message());
    } else {
      for (auto& [key, value] : *list) {
        if (key == "service.name") {
          service_name = value;
          continue;
        }
        std::string bounded = BoundedUtf8(value, options.limits.max_value_bytes);
        others.push_back({BoundedUtf8(key, options.limits.max_value_bytes), std::move(bounded)});
      }
    }
  }
  if (std::optional<std::string> name = reader.Get("OTEL_SERVICE_NAME")) service_name = *name;
  options.resource.attributes.clear();
  options.resource.attributes.push_back(
      {"service.name", BoundedUtf8(service_name, options.limits.max_value_bytes)});
  for (Attribute& attribute : others) options.resource.attributes.push_back(std::move(attribute));
  options.resource.attributes.push_back({"telemetry.sdk.name", std::string("taskboard")});
  options.resource.attributes.push_back({"telemetry.sdk.language", std::string("cpp")});
}

void ReadSampler(Reader& reader, TracingOptions& options) {
  std::string name = "parentbased_always_on";
  if (std::optional<std::string> value = reader.Get("OTEL_TRACES_SAMPLER")) {
    name = absl::AsciiStrToLower(absl::StripAsciiWhitespace(*value));
  }
  double ratio = 1.0;
  const bool uses_ratio = name == "traceidratio" || name == "parentbased_traceidratio";
  if (std::optional<std::string> arg = reader.Get("OTEL_TRACES_SAMPLER_ARG"); arg && uses_ratio) {
    double parsed = 0;
    if (!absl::SimpleAtod(absl::StripAsciiWhitespace(*arg), &parsed) || !(parsed >= 0) ||
        parsed > 1) {
      reader.Warn("OTEL_TRACES_SAMPLER_ARG",
                  absl::StrCat("'", *arg, "' is not a ratio in [0, 1]; using 1"));
    } else {
      ratio = parsed;
    }
  }
  if (name == "always_on") {
    options.sampler = {.parent_based = false, .ratio = 1.0};
  } else if (name == "always_off") {
    options.sampler = {.parent_based = false, .ratio = 0.0};
  } else if (name == "traceidratio") {
    options.sampler = {.parent_based = false, .ratio = ratio};
  } else if (name == "parentbased_always_on") {
    options.sampler = {.parent_based = true, .ratio = 1.0};
  } else if (name == "parentbased_always_off") {
    options.sampler = {.parent_based = true, .ratio = 0.0};
  } else if (name == "parentbased_traceidratio") {
    options.sampler = {.parent_based = true, .ratio = ratio};
  } else {
    reader.Warn("OTEL_TRACES_SAMPLER", absl::StrCat("'", name,
                                                    "' is not a sampler Taskboard has; using "
                                                    "parentbased_always_on"));
    options.sampler = {.parent_based = true, .ratio = 1.0};
  }
}

void ReadBatchAndLimits(Reader& reader, TracingOptions& options) {
  if (auto delay = reader.Millis({"OTEL_BSP_SCHEDULE_DELAY"})) {
    options.batch.schedule_delay = *delay;
  }
  if (auto bound = reader.Millis({"OTEL_BSP_EXPORT_TIMEOUT"})) options.retry.max_elapsed = *bound;
  if (auto capacity = reader.Positive("OTEL_BSP_MAX_QUEUE_SIZE", kMaxQueueCapacity)) {
    options.batch.queue_capacity = static_cast<size_t>(*capacity);
  }
  if (auto batch = reader.Positive("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", kMaxQueueCapacity)) {
    options.batch.max_batch = static_cast<size_t>(*batch);
  }
  if (options.batch.max_batch > options.batch.queue_capacity) {
    reader.Warn("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "larger than the queue; using the queue's size");
    options.batch.max_batch = options.batch.queue_capacity;
  }
  SpanLimits& limits = options.limits;
  if (auto count = reader.Positive("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", kMaxCountLimit)) {
    limits.max_attributes = static_cast<size_t>(*count);
  }
  if (auto count = reader.Positive("OTEL_SPAN_EVENT_COUNT_LIMIT", kMaxCountLimit)) {
    limits.max_events = static_cast<size_t>(*count);
  }
  if (auto count = reader.Positive("OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT", kMaxCountLimit)) {
    limits.max_event_attributes = static_cast<size_t>(*count);
  }
  // The span-specific limit wins over the general one.
  for (absl::string_view name :
       {"OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT"}) {
    if (auto bytes = reader.Positive(name, kMaxValueBytes)) {
      limits.max_value_bytes = static_cast<size_t>(*bytes);
    }
  }
}

bool Disabled(Reader& reader) {
  if (std::optional<std::string> value = reader.Get("OTEL_SDK_DISABLED")) {
    const std::string flag = absl::AsciiStrToLower(absl::StripAsciiWhitespace(*value));
    if (flag == "true") return true;
    if (flag != "false") reader.Warn("OTEL_SDK_DISABLED", "neither true nor false");
  }
  if (std::optional<std::string> value = reader.Get("OTEL_TRACES_EXPORTER")) {
    bool otlp = false;
    for (absl::string_view name : absl::StrSplit(*value, ',')) {
      name = absl::StripAsciiWhitespace(name);
      if (name == "none") return true;
      if (name == "otlp") {
        otlp = true;
      } else {
        reader.Warn("OTEL_TRACES_EXPORTER",
                    absl::StrCat("'", name, "' is not an exporter Taskboard has (otlp, none)"));
      }
    }
    if (!otlp) return true;
  }
  return false;
}

}  // namespace

EnvironmentLookup ProcessEnvironment() {
  return [](absl::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

std::string TracesUrlFromBase(absl::string_view base) {
  while (absl::EndsWith(base, "/")) base.remove_suffix(1);
  return absl::StrCat(base, "/v1/traces");
}

TracingEnvironment TracingOptionsFromEnvironment(const EnvironmentLookup& env,
                                                 absl::string_view default_service_name) {
  TracingEnvironment result;
  Reader reader(env, result.warnings);
  TracingOptions& options = result.options;
  ReadBatchAndLimits(reader, options);
  ReadResource(reader, default_service_name, options);
  ReadSampler(reader, options);
  if (auto protocol =
          reader.First({"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"});
      protocol && absl::StripAsciiWhitespace(protocol->second) != "http/protobuf") {
    reader.Warn(protocol->first,
                absl::StrCat("'", protocol->second, "': Taskboard exports http/protobuf only"));
  }
  if (auto compression =
          reader.First({"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "OTEL_EXPORTER_OTLP_COMPRESSION"});
      compression && absl::StripAsciiWhitespace(compression->second) != "none") {
    reader.Warn(compression->first, "Taskboard sends spans uncompressed");
  }
  if (auto timeout =
          reader.Millis({"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"})) {
    options.export_timeout = *timeout;
  }
  ReadHeaders(reader, options);
  if (Disabled(reader)) return result;
  ReadEndpoint(reader, options);
  return result;
}

absl::Status ApplyOtlpEndpointFlag(absl::string_view endpoint, TracingOptions& options) {
  if (endpoint.empty()) return absl::OkStatus();
  if (absl::Status status = CheckWebhookUrl(endpoint); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--otlp-endpoint: ", status.message()));
  }
  options.traces_url = TracesUrlFromBase(endpoint);
  return absl::OkStatus();
}

absl::StatusOr<TracingEnvironment> TracingForService(const EnvironmentLookup& env,
                                                     absl::string_view default_service_name,
                                                     const ServiceTracingFlags& flags) {
  TracingEnvironment environment = TracingOptionsFromEnvironment(env, default_service_name);
  if (absl::Status endpoint = ApplyOtlpEndpointFlag(flags.otlp_endpoint, environment.options);
      !endpoint.ok()) {
    return endpoint;
  }
  if (flags.sample_ratio.has_value()) {
    const double ratio = *flags.sample_ratio;
    if (!(ratio >= 0) || ratio > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("--trace-sample-ratio: ", ratio,
                       " is not a ratio in [0, 1]: give 1 to sample every run, 0 for none"));
    }
    environment.options.sampler = {.parent_based = true, .ratio = ratio};
  }
  return environment;
}

}  // namespace taskboard::otel
