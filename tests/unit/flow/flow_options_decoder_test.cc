#include "scheduler/flow/flow_options_decoder.h"

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/flow/flow_names.h"

namespace taskboard::flow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

std::vector<std::string> Lines(const FlowErrorList& errors) {
  std::vector<std::string> lines;
  for (const v1::FlowError& error : errors.proto().errors()) {
    lines.push_back(FormatFlowError(error));
  }
  return lines;
}

// Decodes a flowPolicy given as JSON text; `errors` receives the problems.
v1::FlowPolicy Policy(absl::string_view json, FlowErrorList* errors) {
  return DecodeFlowPolicy(Json::parse(json), "flowPolicy", errors);
}

v1::ToolCacheConfig Cache(absl::string_view json, FlowErrorList* errors) {
  return DecodeToolCache(Json::parse(json), "toolCache", errors);
}

// ---------------------------------------------------------------------------
// flowPolicy

TEST(DecodeFlowPolicy, SnakeCaseName_Decoded) {
  FlowErrorList errors;
  v1::FlowPolicy policy = Policy(R"("declared_deps_only")", &errors);
  EXPECT_THAT(Lines(errors), IsEmpty());
  EXPECT_TRUE(policy.has_declared_deps_only());
  EXPECT_EQ(FlowPolicyName(policy), "declared_deps_only");
}

TEST(DecodeFlowPolicy, CamelCaseName_Decoded) {
  FlowErrorList errors;
  v1::FlowPolicy policy = Policy(R"("recentTrajectory")", &errors);
  EXPECT_THAT(Lines(errors), IsEmpty());
  ASSERT_TRUE(policy.has_recent_trajectory());
  EXPECT_EQ(policy.recent_trajectory().n(), 8);  // the default
  EXPECT_EQ(FlowPolicyName(policy), "recent_trajectory");
}

TEST(DecodeFlowPolicy, EveryNamedPolicy_RoundTripsItsName) {
  for (const char* name : {"none", "declared_deps_only", "ancestors", "recent_trajectory",
                           "all_completed", "compact", "custom"}) {
    FlowErrorList errors;
    v1::FlowPolicy policy = DecodeFlowPolicy(Json(name), "flowPolicy", &errors);
    EXPECT_THAT(Lines(errors), IsEmpty()) << name;
    EXPECT_EQ(FlowPolicyName(policy), name);
  }
}

TEST(DecodeFlowPolicy, ObjectWithParams_Decoded) {
  FlowErrorList errors;
  v1::FlowPolicy recent =
      Policy(R"({"type": "recent_trajectory", "n": 4, "maxTokens": 2000})", &errors);
  v1::FlowPolicy compact =
      Policy(R"({"type": "compact", "recentN": 3, "summarizerAgent": "sum"})", &errors);
  v1::FlowPolicy custom = Policy(R"({"type": "custom", "deps": true, "errors": true,
      "tools": ["read_file"], "recent": 5, "maxTokens": 100, "external": "policy:50051",
      "externalTimeoutMs": 250})",
                                 &errors);
  EXPECT_THAT(Lines(errors), IsEmpty());
  EXPECT_EQ(recent.recent_trajectory().n(), 4);
  EXPECT_EQ(recent.recent_trajectory().max_tokens(), 2000);
  EXPECT_EQ(compact.compact().recent_n(), 3);
  EXPECT_EQ(compact.compact().summarizer_agent(), "sum");
  EXPECT_TRUE(custom.custom().deps());
  EXPECT_FALSE(custom.custom().ancestors());
  EXPECT_TRUE(custom.custom().errors());
  EXPECT_THAT(custom.custom().tools(), ElementsAre("read_file"));
  EXPECT_EQ(custom.custom().recent(), 5);
  EXPECT_EQ(custom.custom().max_tokens(), 100);
  EXPECT_EQ(custom.custom().external(), "policy:50051");
  EXPECT_EQ(custom.custom().external_timeout_ms(), 250);
}

TEST(DecodeFlowPolicy, ObjectWithCamelCaseType_Decoded) {
  FlowErrorList errors;
  v1::FlowPolicy policy = Policy(R"({"type": "allCompleted", "maxTokens": 10})", &errors);
  EXPECT_THAT(Lines(errors), IsEmpty());
  EXPECT_EQ(policy.all_completed().max_tokens(), 10);
}

TEST(DecodeFlowPolicy, UnknownName_ListsPolicies) {
  FlowErrorList errors;
  Policy(R"("smart")", &errors);
  EXPECT_THAT(Lines(errors),
              ElementsAre("flowPolicy: unknown flow policy 'smart'; use one of none, "
                          "declared_deps_only, ancestors, recent_trajectory, all_completed, "
                          "compact, custom"));
}

TEST(DecodeFlowPolicy, UnknownTypeInObject_ReportedAtType) {
  FlowErrorList errors;
  Policy(R"({"type": "smart", "n": 2})", &errors);
  EXPECT_THAT(Lines(errors),
              ElementsAre(HasSubstr("flowPolicy.type: unknown flow policy 'smart'")));
}

TEST(DecodeFlowPolicy, ObjectWithoutType_ReportedAtType) {
  FlowErrorList errors;
  Policy(R"({"n": 2})", &errors);
  EXPECT_THAT(Lines(errors), ElementsAre(HasSubstr("flowPolicy.type: missing policy type; use one "
                                                   "of none, declared_deps_only")));
}

TEST(DecodeFlowPolicy, ParamsOfAnotherPolicy_RejectedAsUnknownFields) {
  FlowErrorList errors;
  Policy(R"({"type": "ancestors", "transitive": true, "n": 3})", &errors);
  Policy(R"({"type": "recent_trajectory", "transitive": true})", &errors);
  EXPECT_THAT(Lines(errors), ElementsAre("flowPolicy.n: unknown field 'n'",
                                         "flowPolicy.transitive: unknown field 'transitive'"));
}

TEST(DecodeFlowPolicy, ParamOfWrongType_Reported) {
  FlowErrorList errors;
  Policy(R"({"type": "recent_trajectory", "n": 0})", &errors);
  Policy(R"({"type": "ancestors", "transitive": "yes"})", &errors);
  EXPECT_THAT(Lines(errors),
              ElementsAre(HasSubstr("flowPolicy.n: must be an integer from 1 to "),
                          "flowPolicy.transitive: must be true or false (got a string)"));
}

TEST(DecodeFlowPolicy, NeitherNameNorObject_Reported) {
  FlowErrorList errors;
  Policy("7", &errors);
  EXPECT_THAT(Lines(errors), ElementsAre("flowPolicy: must be a policy name or an object with "
                                         "`type` (got a number)"));
}

// ---------------------------------------------------------------------------
// toolCache

TEST(DecodeToolCache, FullConfig_Decoded) {
  FlowErrorList errors;
  v1::ToolCacheConfig config = Cache(R"({
      "defaultTtlMs": 60000, "defaultScope": "request", "maxEntries": 100,
      "tools": {
        "read_file": {"ttlMs": 0, "scope": "session", "keyFields": ["path"],
                      "cacheIf": "result.status == 200"},
        "web_fetch": {"enabled": true},
        "bash": false}})",
                                     &errors);
  EXPECT_THAT(Lines(errors), IsEmpty());
  EXPECT_EQ(config.default_ttl_ms(), 60000);
  EXPECT_EQ(config.default_scope(), v1::CACHE_SCOPE_REQUEST);
  EXPECT_EQ(config.max_entries(), 100);
  const v1::ToolCacheRule& read = config.tools().at("read_file");
  EXPECT_TRUE(read.has_ttl_ms());
  EXPECT_EQ(read.ttl_ms(), 0);
  EXPECT_EQ(read.scope(), v1::CACHE_SCOPE_SESSION);
  EXPECT_THAT(read.key_fields(), ElementsAre("path"));
  EXPECT_EQ(read.cache_if(), "result.status == 200");
  EXPECT_FALSE(read.has_enabled());
  EXPECT_TRUE(config.tools().at("web_fetch").enabled());
  EXPECT_FALSE(config.tools().at("web_fetch").has_ttl_ms());
}

TEST(DecodeToolCache, CacheIfThatDoesNotParse_IsAnErrorAtItsPath) {
  FlowErrorList errors;
  Cache(R"({"tools": {"http_get": {"cacheIf": "result.status =="}}})", &errors);
  ASSERT_THAT(Lines(errors), SizeIs(1));
  EXPECT_THAT(Lines(errors)[0],
              StartsWith("toolCache.tools.http_get.cacheIf: cache_if column 17: expected a value"));
}

TEST(DecodeToolCache, ToolSetToFalse_DisablesCaching) {
  FlowErrorList errors;
  v1::ToolCacheConfig config = Cache(R"({"tools": {"read_file": false}})", &errors);
  EXPECT_THAT(Lines(errors), IsEmpty());
  ASSERT_TRUE(config.tools().at("read_file").has_enabled());
  EXPECT_FALSE(config.tools().at("read_file").enabled());
}

TEST(DecodeToolCache, Empty_LeavesDefaultsUnset) {
  FlowErrorList errors;
  v1::ToolCacheConfig config = Cache("{}", &errors);
  EXPECT_THAT(Lines(errors), IsEmpty());
  EXPECT_FALSE(config.has_default_ttl_ms());
  EXPECT_FALSE(config.has_max_entries());
  EXPECT_EQ(config.default_scope(), v1::CACHE_SCOPE_UNSPECIFIED);
}

TEST(DecodeToolCache, BadScope_ReportedWithPath) {
  FlowErrorList errors;
  Cache(R"({"defaultScope": "global", "tools": {"read_file": {"scope": 3}}})", &errors);
  EXPECT_THAT(Lines(errors),
              ElementsAre("toolCache.defaultScope: must be one of run, request, session (got "
                          "\"global\")",
                          "toolCache.tools.read_file.scope: must be one of run, request, session "
                          "(got 3)"));
}

TEST(DecodeToolCache, UnknownRuleField_SuggestsKnownOne) {
  FlowErrorList errors;
  Cache(R"({"tools": {"read_file": {"ttl_ms": 5}}})", &errors);
  EXPECT_THAT(Lines(errors), ElementsAre("toolCache.tools.read_file.ttl_ms: unknown field "
                                         "'ttl_ms'; did you mean 'ttlMs'?"));
}

TEST(DecodeToolCache, WrongShapes_Reported) {
  FlowErrorList errors;
  Cache(R"({"tools": ["read_file"], "maxEntries": 0, "defaultTtlMs": -1})", &errors);
  Cache(R"({"tools": {"read_file": 5}})", &errors);
  Cache(R"("always")", &errors);
  EXPECT_THAT(Lines(errors),
              ElementsAre(HasSubstr("toolCache.defaultTtlMs: must be an integer from 0 to"),
                          HasSubstr("toolCache.maxEntries: must be an integer from 1 to"),
                          "toolCache.tools: must be an object of tool name -> rule (got an array)",
                          "toolCache.tools.read_file: must be an object (got a number)",
                          "toolCache: must be an object (got a string)"));
}

TEST(DecodeCacheScope, Names) {
  FlowErrorList errors;
  EXPECT_EQ(DecodeCacheScope(Json("run"), "s", &errors), v1::CACHE_SCOPE_RUN);
  EXPECT_EQ(DecodeCacheScope(Json("request"), "s", &errors), v1::CACHE_SCOPE_REQUEST);
  EXPECT_EQ(DecodeCacheScope(Json("session"), "s", &errors), v1::CACHE_SCOPE_SESSION);
  EXPECT_THAT(Lines(errors), IsEmpty());
  EXPECT_EQ(DecodeCacheScope(Json("Run"), "s", &errors), v1::CACHE_SCOPE_UNSPECIFIED);
  EXPECT_THAT(Lines(errors), ElementsAre("s: must be one of run, request, session (got \"Run\")"));
}

}  // namespace
}  // namespace taskboard::flow
