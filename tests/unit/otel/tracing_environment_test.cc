// TracingOptions from the OTEL_* environment: endpoints and their
// precedence, headers, timeouts, resource and service name, samplers, batch
// settings and limits, what disables tracing, and values ignored with a
// warning; then the --otlp-endpoint flag on top.

#include "common/otel/tracing_environment.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::otel {
namespace {

using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

TracingEnvironment From(std::map<std::string, std::string> variables) {
  return TracingOptionsFromEnvironment(
      [variables](absl::string_view name) -> std::optional<std::string> {
        auto it = variables.find(std::string(name));
        if (it == variables.end()) return std::nullopt;
        return it->second;
      },
      "taskboard-scheduler");
}

std::string Resource(const TracingOptions& options, const std::string& key) {
  for (const Attribute& attribute : options.resource.attributes) {
    if (attribute.key == key) return std::get<std::string>(attribute.value);
  }
  return "<absent>";
}

TEST(TracingEnvironment, Nothing_LeavesTracingOffWithDefaults) {
  const TracingEnvironment env = From({});
  EXPECT_FALSE(env.options.enabled());
  EXPECT_THAT(env.warnings, IsEmpty());
  EXPECT_EQ(env.options.export_timeout, absl::Seconds(10));
  EXPECT_EQ(env.options.batch.queue_capacity, 2048u);
  EXPECT_EQ(env.options.batch.max_batch, 512u);
  EXPECT_EQ(env.options.batch.schedule_delay, absl::Seconds(5));
  EXPECT_EQ(env.options.retry.max_elapsed, absl::Seconds(30));
  EXPECT_TRUE(env.options.sampler.parent_based);
  EXPECT_EQ(env.options.sampler.ratio, 1.0);
  EXPECT_EQ(Resource(env.options, "service.name"), "taskboard-scheduler");
  EXPECT_EQ(Resource(env.options, "telemetry.sdk.language"), "cpp");
}

TEST(TracingEnvironment, BaseEndpoint_GetsV1TracesAppended) {
  EXPECT_EQ(From({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"}}).options.traces_url,
            "http://collector:4318/v1/traces");
  EXPECT_EQ(From({{"OTEL_EXPORTER_OTLP_ENDPOINT", "https://c.example/otlp/"}}).options.traces_url,
            "https://c.example/otlp/v1/traces");
}

TEST(TracingEnvironment, TracesEndpoint_IsUsedAsIsAndWins) {
  const TracingEnvironment env =
      From({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:4318"},
            {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://traces:9999/custom/path"}});
  EXPECT_EQ(env.options.traces_url, "http://traces:9999/custom/path");
  EXPECT_TRUE(env.options.enabled());
}

TEST(TracingEnvironment, EmptyVariable_CountsAsUnset) {
  const TracingEnvironment env = From({{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", ""},
                                       {"OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:4318"}});
  EXPECT_EQ(env.options.traces_url, "http://base:4318/v1/traces");
}

TEST(TracingEnvironment, UnusableEndpoint_IsIgnoredWithAWarning) {
  const TracingEnvironment env = From({{"OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318"}});
  EXPECT_FALSE(env.options.enabled());
  EXPECT_THAT(env.warnings, ElementsAre(HasSubstr("OTEL_EXPORTER_OTLP_ENDPOINT")));
}

TEST(TracingEnvironment, Headers_AreParsedAndPercentDecoded) {
  const TracingEnvironment env =
      From({{"OTEL_EXPORTER_OTLP_HEADERS", "api-key=secret%20value, x-tenant = acme"}});
  EXPECT_THAT(env.options.headers,
              ElementsAre(std::make_pair(std::string("api-key"), std::string("secret value")),
                          std::make_pair(std::string("x-tenant"), std::string("acme"))));
}

TEST(TracingEnvironment, TracesHeaders_ReplaceTheGeneralOnes) {
  const TracingEnvironment env = From(
      {{"OTEL_EXPORTER_OTLP_HEADERS", "a=1,b=2"}, {"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "c=3"}});
  EXPECT_THAT(env.options.headers, ElementsAre(std::make_pair(std::string("c"), std::string("3"))));
}

TEST(TracingEnvironment, HeaderSmugglingALine_IsRefusedWithoutQuotingTheValue) {
  const TracingEnvironment env =
      From({{"OTEL_EXPORTER_OTLP_HEADERS", "api-key=secret%0D%0AHost: evil"}});
  EXPECT_THAT(env.options.headers, IsEmpty());
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_THAT(env.warnings[0], HasSubstr("control character"));
  EXPECT_THAT(env.warnings[0], Not(HasSubstr("secret")));
}

TEST(TracingEnvironment, MalformedHeaders_AreIgnoredWithoutQuotingThem) {
  const TracingEnvironment env = From({{"OTEL_EXPORTER_OTLP_HEADERS", "token-without-equals"}});
  EXPECT_THAT(env.options.headers, IsEmpty());
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_THAT(env.warnings[0], Not(HasSubstr("token-without-equals")));
}

TEST(TracingEnvironment, Timeouts_AreMillisecondsAndTheTracesOneWins) {
  EXPECT_EQ(From({{"OTEL_EXPORTER_OTLP_TIMEOUT", "2500"}}).options.export_timeout,
            absl::Milliseconds(2500));
  EXPECT_EQ(
      From({{"OTEL_EXPORTER_OTLP_TIMEOUT", "2500"}, {"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "700"}})
          .options.export_timeout,
      absl::Milliseconds(700));
  const TracingEnvironment bad = From({{"OTEL_EXPORTER_OTLP_TIMEOUT", "10s"}});
  EXPECT_EQ(bad.options.export_timeout, absl::Seconds(10));
  EXPECT_THAT(bad.warnings, ElementsAre(HasSubstr("not a positive whole number")));
}

TEST(TracingEnvironment, ServiceName_ComesFromOtelServiceNameFirst) {
  EXPECT_EQ(Resource(From({{"OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attributes"}}).options,
                     "service.name"),
            "from-attributes");
  EXPECT_EQ(Resource(From({{"OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attributes"},
                           {"OTEL_SERVICE_NAME", "from-name"}})
                         .options,
                     "service.name"),
            "from-name");
}

TEST(TracingEnvironment, ResourceAttributes_AreAddedOnceServiceNameLeads) {
  const TracingEnvironment env =
      From({{"OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod,k8s.pod.name=worker%2D1"}});
  ASSERT_GE(env.options.resource.attributes.size(), 3u);
  EXPECT_EQ(env.options.resource.attributes[0].key, "service.name");
  EXPECT_EQ(Resource(env.options, "deployment.environment"), "prod");
  EXPECT_EQ(Resource(env.options, "k8s.pod.name"), "worker-1");
}

TEST(TracingEnvironment, MalformedResourceAttributes_AreIgnoredWhole) {
  const TracingEnvironment env = From({{"OTEL_RESOURCE_ATTRIBUTES", "good=1,bad%zz=2"}});
  EXPECT_EQ(Resource(env.options, "good"), "<absent>");
  EXPECT_THAT(env.warnings, ElementsAre(HasSubstr("OTEL_RESOURCE_ATTRIBUTES")));
}

TEST(TracingEnvironment, Samplers_MapToConfigs) {
  struct Case {
    const char* name;
    const char* arg;
    bool parent_based;
    double ratio;
  };
  for (const Case& c :
       {Case{"always_on", "", false, 1.0}, Case{"always_off", "", false, 0.0},
        Case{"traceidratio", "0.25", false, 0.25}, Case{"parentbased_always_on", "", true, 1.0},
        Case{"parentbased_always_off", "", true, 0.0},
        Case{"parentbased_traceidratio", "0.1", true, 0.1},
        Case{"PARENTBASED_TRACEIDRATIO", "0.5", true, 0.5}}) {
    const TracingEnvironment env =
        From({{"OTEL_TRACES_SAMPLER", c.name}, {"OTEL_TRACES_SAMPLER_ARG", c.arg}});
    EXPECT_EQ(env.options.sampler.parent_based, c.parent_based) << c.name;
    EXPECT_EQ(env.options.sampler.ratio, c.ratio) << c.name;
    EXPECT_THAT(env.warnings, IsEmpty()) << c.name;
  }
}

TEST(TracingEnvironment, RatioWithoutArg_IsOne) {
  EXPECT_EQ(From({{"OTEL_TRACES_SAMPLER", "traceidratio"}}).options.sampler.ratio, 1.0);
}

TEST(TracingEnvironment, BadRatio_IsIgnoredWithAWarning) {
  for (const char* arg : {"1.5", "-0.1", "half", "nan"}) {
    const TracingEnvironment env = From(
        {{"OTEL_TRACES_SAMPLER", "parentbased_traceidratio"}, {"OTEL_TRACES_SAMPLER_ARG", arg}});
    EXPECT_EQ(env.options.sampler.ratio, 1.0) << arg;
    EXPECT_THAT(env.warnings, ElementsAre(HasSubstr("OTEL_TRACES_SAMPLER_ARG"))) << arg;
  }
}

TEST(TracingEnvironment, UnknownSampler_FallsBackToParentBasedAlwaysOn) {
  const TracingEnvironment env = From({{"OTEL_TRACES_SAMPLER", "jaeger_remote"}});
  EXPECT_TRUE(env.options.sampler.parent_based);
  EXPECT_EQ(env.options.sampler.ratio, 1.0);
  EXPECT_THAT(env.warnings, ElementsAre(HasSubstr("jaeger_remote")));
}

TEST(TracingEnvironment, BatchSettingsAndLimits_AreRead) {
  const TracingEnvironment env = From({{"OTEL_BSP_SCHEDULE_DELAY", "200"},
                                       {"OTEL_BSP_EXPORT_TIMEOUT", "3000"},
                                       {"OTEL_BSP_MAX_QUEUE_SIZE", "100"},
                                       {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "20"},
                                       {"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "9"},
                                       {"OTEL_SPAN_EVENT_COUNT_LIMIT", "8"},
                                       {"OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT", "7"},
                                       {"OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "1000"},
                                       {"OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "500"}});
  EXPECT_THAT(env.warnings, IsEmpty());
  EXPECT_EQ(env.options.batch.schedule_delay, absl::Milliseconds(200));
  EXPECT_EQ(env.options.retry.max_elapsed, absl::Seconds(3));
  EXPECT_EQ(env.options.batch.queue_capacity, 100u);
  EXPECT_EQ(env.options.batch.max_batch, 20u);
  EXPECT_EQ(env.options.limits.max_attributes, 9u);
  EXPECT_EQ(env.options.limits.max_events, 8u);
  EXPECT_EQ(env.options.limits.max_event_attributes, 7u);
  EXPECT_EQ(env.options.limits.max_value_bytes, 500u);
}

TEST(TracingEnvironment, OversizedSettings_AreCappedWithAWarning) {
  const TracingEnvironment env =
      From({{"OTEL_BSP_MAX_QUEUE_SIZE", "999999999"}, {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "10"}});
  EXPECT_EQ(env.options.batch.queue_capacity, size_t{1} << 20);
  EXPECT_THAT(env.warnings, ElementsAre(HasSubstr("OTEL_BSP_MAX_QUEUE_SIZE")));
}

TEST(TracingEnvironment, BatchLargerThanQueue_IsCutToTheQueue) {
  const TracingEnvironment env = From({{"OTEL_BSP_MAX_QUEUE_SIZE", "10"}});
  EXPECT_EQ(env.options.batch.max_batch, 10u);
  EXPECT_THAT(env.warnings, ElementsAre(HasSubstr("OTEL_BSP_MAX_EXPORT_BATCH_SIZE")));
}

TEST(TracingEnvironment, SdkDisabledOrExporterNone_TurnTracingOff) {
  const std::map<std::string, std::string> endpoint = {
      {"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"}};
  auto with = [&endpoint](const char* name, const char* value) {
    auto variables = endpoint;
    variables[name] = value;
    return From(variables).options.enabled();
  };
  EXPECT_TRUE(with("OTEL_SDK_DISABLED", "false"));
  EXPECT_FALSE(with("OTEL_SDK_DISABLED", "TRUE"));
  EXPECT_FALSE(with("OTEL_TRACES_EXPORTER", "none"));
  EXPECT_TRUE(with("OTEL_TRACES_EXPORTER", "otlp"));
  EXPECT_FALSE(with("OTEL_TRACES_EXPORTER", "zipkin"));
}

TEST(TracingEnvironment, OtherProtocolOrCompression_AreReportedNotHonoured) {
  const TracingEnvironment env = From(
      {{"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"}, {"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "gzip"}});
  EXPECT_THAT(env.warnings,
              ElementsAre(HasSubstr("http/protobuf only"), HasSubstr("uncompressed")));
  EXPECT_THAT(From({{"OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"}}).warnings, IsEmpty());
}

TEST(OtlpEndpointFlag, OverridesTheEnvironmentsEndpoint) {
  TracingOptions options =
      From({{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://env:4318/v1/traces"}}).options;
  ASSERT_TRUE(ApplyOtlpEndpointFlag("http://flag:4318", options).ok());
  EXPECT_EQ(options.traces_url, "http://flag:4318/v1/traces");
}

TEST(OtlpEndpointFlag, Empty_LeavesTheOptionsAlone) {
  TracingOptions options = From({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://env:4318"}}).options;
  ASSERT_TRUE(ApplyOtlpEndpointFlag("", options).ok());
  EXPECT_EQ(options.traces_url, "http://env:4318/v1/traces");
}

TEST(OtlpEndpointFlag, NotAnHttpUrl_IsInvalid) {
  TracingOptions options;
  EXPECT_THAT(ApplyOtlpEndpointFlag("localhost:4318", options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--otlp-endpoint")));
  EXPECT_FALSE(options.enabled());
}

EnvironmentLookup Variables(std::map<std::string, std::string> variables) {
  return [variables](absl::string_view name) -> std::optional<std::string> {
    auto it = variables.find(std::string(name));
    if (it == variables.end()) return std::nullopt;
    return it->second;
  };
}

TEST(TracingForService, EndpointFlag_WinsOverTheVariables) {
  absl::StatusOr<TracingEnvironment> env = TracingForService(
      Variables({{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://env:4318/v1/traces"},
                 {"OTEL_SERVICE_NAME", "sched-a"},
                 {"OTEL_EXPORTER_OTLP_HEADERS", "x-key=1"}}),
      "taskboard-scheduler", {.otlp_endpoint = "http://flag:4318"});
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_EQ(env->options.traces_url, "http://flag:4318/v1/traces");
  EXPECT_EQ(Resource(env->options, "service.name"), "sched-a");
  EXPECT_THAT(env->options.headers, ElementsAre(std::make_pair("x-key", "1")));
}

TEST(TracingForService, NoFlags_KeepTheEnvironmentsSampler) {
  absl::StatusOr<TracingEnvironment> env = TracingForService(
      Variables({{"OTEL_TRACES_SAMPLER", "traceidratio"}, {"OTEL_TRACES_SAMPLER_ARG", "0.25"}}),
      "taskboard-scheduler", {});
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_FALSE(env->options.sampler.parent_based);
  EXPECT_EQ(env->options.sampler.ratio, 0.25);
}

TEST(TracingForService, SampleRatio_IsParentBasedWithThatRatio) {
  absl::StatusOr<TracingEnvironment> env =
      TracingForService(Variables({{"OTEL_TRACES_SAMPLER", "always_off"}}), "taskboard-scheduler",
                        {.sample_ratio = 0.1});
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_TRUE(env->options.sampler.parent_based);
  EXPECT_EQ(env->options.sampler.ratio, 0.1);
}

TEST(TracingForService, RatioOutsideZeroToOne_IsRefusedNamingTheFlag) {
  EXPECT_THAT(TracingForService(Variables({}), "s", {.sample_ratio = 1.5}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--trace-sample-ratio")));
  EXPECT_THAT(TracingForService(Variables({}), "s", {.sample_ratio = -0.1}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--trace-sample-ratio")));
}

TEST(TracingForService, BadEndpointFlag_IsRefused) {
  EXPECT_THAT(TracingForService(Variables({}), "s", {.otlp_endpoint = "collector:4318"}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--otlp-endpoint")));
}

}  // namespace
}  // namespace taskboard::otel
