#include "scheduler/cache/cache_rule.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::cache {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

v1::ToolDeclaration Declared(bool cacheable, int64_t ttl_ms = 0,
                             v1::CacheScope scope = v1::CACHE_SCOPE_UNSPECIFIED) {
  v1::ToolDeclaration decl;
  decl.set_name("read_file");
  decl.set_cacheable(cacheable);
  decl.set_default_ttl_ms(ttl_ms);
  decl.set_default_scope(scope);
  return decl;
}

CacheRule Resolve(const v1::ToolDeclaration* decl, const v1::ToolCacheConfig& flow,
                  const v1::PhaseCacheOverride* phase = nullptr) {
  absl::StatusOr<CacheRule> rule = ResolveCacheRule("read_file", decl, flow, phase);
  EXPECT_THAT(rule, IsOk());
  return rule.ok() ? *rule : CacheRule{};
}

TEST(CacheRule, UnknownToolWithoutFlowRule_NotCacheable) {
  EXPECT_FALSE(Resolve(nullptr, {}).cacheable);
}

TEST(CacheRule, DeclaredNotCacheable_NotCacheable) {
  const v1::ToolDeclaration decl = Declared(false);
  EXPECT_FALSE(Resolve(&decl, {}).cacheable);
}

TEST(CacheRule, DeclaredCacheableWithoutSettings_BoardDefaults) {
  const v1::ToolDeclaration decl = Declared(true);
  const CacheRule rule = Resolve(&decl, {});
  EXPECT_TRUE(rule.cacheable);
  EXPECT_EQ(rule.ttl_ms, 300000);
  EXPECT_EQ(rule.scope, v1::CACHE_SCOPE_RUN);
  EXPECT_EQ(rule.max_entries, 5000);
  EXPECT_THAT(rule.key_fields, IsEmpty());
  EXPECT_FALSE(rule.cache_if.has_value());
}

TEST(CacheRule, FlowDefaults_ApplyWhenNeitherRuleNorDeclarationSetsThem) {
  const v1::ToolDeclaration decl = Declared(true);
  v1::ToolCacheConfig flow;
  flow.set_default_ttl_ms(1000);
  flow.set_default_scope(v1::CACHE_SCOPE_SESSION);
  flow.set_max_entries(7);
  const CacheRule rule = Resolve(&decl, flow);
  EXPECT_EQ(rule.ttl_ms, 1000);
  EXPECT_EQ(rule.scope, v1::CACHE_SCOPE_SESSION);
  EXPECT_EQ(rule.max_entries, 7);
}

TEST(CacheRule, Declaration_BeatsFlowDefaults) {
  v1::ToolDeclaration decl = Declared(true, 60000, v1::CACHE_SCOPE_REQUEST);
  decl.add_key_fields("path");
  v1::ToolCacheConfig flow;
  flow.set_default_ttl_ms(1000);
  flow.set_default_scope(v1::CACHE_SCOPE_SESSION);
  const CacheRule rule = Resolve(&decl, flow);
  EXPECT_EQ(rule.ttl_ms, 60000);
  EXPECT_EQ(rule.scope, v1::CACHE_SCOPE_REQUEST);
  EXPECT_THAT(rule.key_fields, ElementsAre("path"));
}

TEST(CacheRule, FlowRule_OverridesDeclarationFieldByField) {
  v1::ToolDeclaration decl = Declared(true, 60000, v1::CACHE_SCOPE_REQUEST);
  decl.add_key_fields("path");
  v1::ToolCacheConfig flow;
  v1::ToolCacheRule& tool = (*flow.mutable_tools())["read_file"];
  tool.set_ttl_ms(5000);  // scope and key_fields left to the declaration
  const CacheRule rule = Resolve(&decl, flow);
  EXPECT_TRUE(rule.cacheable);
  EXPECT_EQ(rule.ttl_ms, 5000);
  EXPECT_EQ(rule.scope, v1::CACHE_SCOPE_REQUEST);
  EXPECT_THAT(rule.key_fields, ElementsAre("path"));

  tool.set_scope(v1::CACHE_SCOPE_SESSION);
  tool.add_key_fields("path");
  tool.add_key_fields("encoding");
  const CacheRule overridden = Resolve(&decl, flow);
  EXPECT_EQ(overridden.scope, v1::CACHE_SCOPE_SESSION);
  EXPECT_THAT(overridden.key_fields, ElementsAre("path", "encoding"));
}

TEST(CacheRule, FlowRuleTtlZero_IsKept) {
  const v1::ToolDeclaration decl = Declared(true, 60000);
  v1::ToolCacheConfig flow;
  (*flow.mutable_tools())["read_file"].set_ttl_ms(0);
  const CacheRule rule = Resolve(&decl, flow);
  EXPECT_TRUE(rule.cacheable);
  EXPECT_EQ(rule.ttl_ms, 0);
}

TEST(CacheRule, FlowNamesUndeclaredTool_Cacheable) {
  v1::ToolCacheConfig flow;
  (*flow.mutable_tools())["read_file"].set_scope(v1::CACHE_SCOPE_REQUEST);
  const CacheRule rule = Resolve(nullptr, flow);
  EXPECT_TRUE(rule.cacheable);
  EXPECT_EQ(rule.scope, v1::CACHE_SCOPE_REQUEST);
  const v1::ToolDeclaration not_cacheable = Declared(false);
  EXPECT_TRUE(Resolve(&not_cacheable, flow).cacheable);
}

TEST(CacheRule, FlowEnabledFalse_TurnsDeclaredToolOff) {
  const v1::ToolDeclaration decl = Declared(true);
  v1::ToolCacheConfig flow;
  (*flow.mutable_tools())["read_file"].set_enabled(false);
  EXPECT_FALSE(Resolve(&decl, flow).cacheable);
}

TEST(CacheRule, PhaseOverride_BeatsFlowAndDeclaration) {
  const v1::ToolDeclaration decl = Declared(true);
  v1::PhaseCacheOverride phase;
  phase.set_all_tools(false);
  EXPECT_FALSE(Resolve(&decl, {}, &phase).cacheable);
  (*phase.mutable_tools())["read_file"] = true;
  EXPECT_TRUE(Resolve(&decl, {}, &phase).cacheable);
  v1::PhaseCacheOverride only_other;
  (*only_other.mutable_tools())["list_dir"] = false;
  EXPECT_TRUE(Resolve(&decl, {}, &only_other).cacheable);
}

TEST(CacheRule, CacheIf_ParsedFromFlowRule) {
  v1::ToolCacheConfig flow;
  (*flow.mutable_tools())["read_file"].set_cache_if("result.status == 200");
  const CacheRule rule = Resolve(nullptr, flow);
  ASSERT_TRUE(rule.cache_if.has_value());
  EXPECT_EQ(rule.cache_if->text(), "result.status == 200");
}

TEST(CacheRule, BadCacheIf_InvalidArgumentNamingToolAndColumn) {
  v1::ToolCacheConfig flow;
  (*flow.mutable_tools())["read_file"].set_cache_if("result.status = 200");
  EXPECT_THAT(
      ResolveCacheRule("read_file", nullptr, flow),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("toolCache.tools.read_file.cacheIf"), HasSubstr("column 15"))));
  // A disabled rule's predicate never applies, so it does not fail the call.
  (*flow.mutable_tools())["read_file"].set_enabled(false);
  EXPECT_THAT(ResolveCacheRule("read_file", nullptr, flow), IsOk());
}

TEST(ScopeId, EachScopeUsesItsId) {
  const RunScopeIds ids{.run_id = "run-2", .root_run_id = "run-1", .session_id = "s-9"};
  ResolvedScope run = ResolveScopeId(v1::CACHE_SCOPE_RUN, ids);
  EXPECT_EQ(run.scope, v1::CACHE_SCOPE_RUN);
  EXPECT_EQ(run.scope_id, "run-2");
  ResolvedScope request = ResolveScopeId(v1::CACHE_SCOPE_REQUEST, ids);
  EXPECT_EQ(request.scope, v1::CACHE_SCOPE_REQUEST);
  EXPECT_EQ(request.scope_id, "run-1");
  ResolvedScope session = ResolveScopeId(v1::CACHE_SCOPE_SESSION, ids);
  EXPECT_EQ(session.scope, v1::CACHE_SCOPE_SESSION);
  EXPECT_EQ(session.scope_id, "s-9");
  EXPECT_THAT(run.warning + request.warning + session.warning, IsEmpty());
  EXPECT_EQ(ResolveScopeId(v1::CACHE_SCOPE_UNSPECIFIED, ids).scope_id, "run-2");
}

TEST(ScopeId, RootRun_IsItsOwnRequest) {
  ResolvedScope request = ResolveScopeId(v1::CACHE_SCOPE_REQUEST, {.run_id = "run-1"});
  EXPECT_EQ(request.scope_id, "run-1");
}

TEST(ScopeId, SessionWithoutSessionId_FallsBackToRequestWithWarning) {
  ResolvedScope scope =
      ResolveScopeId(v1::CACHE_SCOPE_SESSION, {.run_id = "run-2", .root_run_id = "run-1"});
  EXPECT_EQ(scope.scope, v1::CACHE_SCOPE_REQUEST);
  EXPECT_EQ(scope.scope_id, "run-1");
  EXPECT_THAT(scope.warning,
              AllOf(HasSubstr("session scope"), HasSubstr("run-2"), HasSubstr("request scope")));
}

}  // namespace
}  // namespace taskboard::cache
