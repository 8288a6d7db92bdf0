#include "scheduler/web/console_config.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "scheduler/web/http_flags.h"

namespace taskboard::web {
namespace {

using ::testing::HasSubstr;

TEST(CheckTraceUrlTemplate, EmptyOrWebUrlWithTraceId_IsAccepted) {
  EXPECT_TRUE(CheckTraceUrlTemplate("").ok());
  EXPECT_TRUE(CheckTraceUrlTemplate("https://tempo.example/trace/{trace_id}").ok());
  EXPECT_TRUE(CheckTraceUrlTemplate("http://jaeger:16686/trace/{trace_id}?uiFind=x").ok());
}

TEST(CheckTraceUrlTemplate, ScriptUrlOrNoPlaceholder_IsRefusedWithAnExample) {
  for (const char* bad : {"javascript:alert('{trace_id}')", "data:text/html,{trace_id}",
                          "https://tempo.example/trace/", "/trace/{trace_id}"}) {
    const absl::Status status = CheckTraceUrlTemplate(bad);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(status.message(), HasSubstr("--trace-url-template")) << bad;
    EXPECT_THAT(status.message(), HasSubstr("https://tempo.example/trace/{trace_id}")) << bad;
  }
}

TEST(ConsoleConfigJson, CarriesTheTemplateEscaped) {
  const nlohmann::json config = nlohmann::json::parse(
      ConsoleConfigJson({.trace_url_template = "https://t.example/a?q=\"{trace_id}\""}));
  EXPECT_EQ(config["traceUrlTemplate"], "https://t.example/a?q=\"{trace_id}\"");
  EXPECT_EQ(nlohmann::json::parse(ConsoleConfigJson({}))["traceUrlTemplate"], "");
}

TEST(ApiServerOptionsFromFlags, TraceUrlTemplate_ReachesTheConsoleOrIsRefused) {
  HttpFlags flags;
  flags.http_listen = "127.0.0.1:0";
  flags.trace_url_template = "https://tempo.example/trace/{trace_id}";
  absl::StatusOr<ApiServerOptions> options = ApiServerOptionsFromFlags(flags, {});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->console.trace_url_template, flags.trace_url_template);

  flags.trace_url_template = "javascript:void(0)";
  EXPECT_EQ(ApiServerOptionsFromFlags(flags, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace taskboard::web
