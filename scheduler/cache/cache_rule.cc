#include "scheduler/cache/cache_rule.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace taskboard::cache {
namespace {

bool ResolveCacheable(absl::string_view tool_name, const v1::ToolDeclaration* decl,
                      const v1::ToolCacheRule* flow_rule, const v1::PhaseCacheOverride* phase) {
  if (phase != nullptr) {
    if (auto it = phase->tools().find(std::string(tool_name)); it != phase->tools().end()) {
      return it->second;
    }
    if (phase->has_all_tools()) return phase->all_tools();
  }
  if (flow_rule != nullptr) return !flow_rule->has_enabled() || flow_rule->enabled();
  return decl != nullptr && decl->cacheable();
}

}  // namespace

absl::StatusOr<CacheRule> ResolveCacheRule(absl::string_view tool_name,
                                           const v1::ToolDeclaration* decl,
                                           const v1::ToolCacheConfig& flow,
                                           const v1::PhaseCacheOverride* phase) {
  const v1::ToolCacheRule* flow_rule = nullptr;
  if (auto it = flow.tools().find(std::string(tool_name)); it != flow.tools().end()) {
    flow_rule = &it->second;
  }

  CacheRule rule;
  rule.cacheable = ResolveCacheable(tool_name, decl, flow_rule, phase);

  if (flow_rule != nullptr && flow_rule->has_ttl_ms()) {
    rule.ttl_ms = flow_rule->ttl_ms();
  } else if (decl != nullptr && decl->default_ttl_ms() > 0) {
    rule.ttl_ms = decl->default_ttl_ms();
  } else if (flow.has_default_ttl_ms()) {
    rule.ttl_ms = flow.default_ttl_ms();
  }
  if (rule.ttl_ms < 0) rule.ttl_ms = 0;

  if (flow_rule != nullptr && flow_rule->scope() != v1::CACHE_SCOPE_UNSPECIFIED) {
    rule.scope = flow_rule->scope();
  } else if (decl != nullptr && decl->default_scope() != v1::CACHE_SCOPE_UNSPECIFIED) {
    rule.scope = decl->default_scope();
  } else if (flow.default_scope() != v1::CACHE_SCOPE_UNSPECIFIED) {
    rule.scope = flow.default_scope();
  }

  if (flow_rule != nullptr && !flow_rule->key_fields().empty()) {
    rule.key_fields.assign(flow_rule->key_fields().begin(), flow_rule->key_fields().end());
  } else if (decl != nullptr) {
    rule.key_fields.assign(decl->key_fields().begin(), decl->key_fields().end());
  }

  if (flow.has_max_entries() && flow.max_entries() > 0) rule.max_entries = flow.max_entries();

  // A rule that cannot apply needs no predicate, valid or not.
  if (rule.cacheable && flow_rule != nullptr && !flow_rule->cache_if().empty()) {
    absl::StatusOr<flow::CacheIf> cache_if = flow::CacheIf::Parse(flow_rule->cache_if());
    if (!cache_if.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("toolCache.tools.", tool_name, ".cacheIf: ", cache_if.status().message()));
    }
    rule.cache_if = *std::move(cache_if);
  }
  return rule;
}

ResolvedScope ResolveScopeId(v1::CacheScope scope, const RunScopeIds& ids) {
  const std::string& root = ids.root_run_id.empty() ? ids.run_id : ids.root_run_id;
  switch (scope) {
    case v1::CACHE_SCOPE_REQUEST:
      return {v1::CACHE_SCOPE_REQUEST, root, ""};
    case v1::CACHE_SCOPE_SESSION:
      if (!ids.session_id.empty()) return {v1::CACHE_SCOPE_SESSION, ids.session_id, ""};
      return {v1::CACHE_SCOPE_REQUEST, root,
              absl::StrCat("tool cache: session scope needs a session id and run ", ids.run_id,
                           " has none, so its entries use request scope (root run ", root,
                           "); submit with a session id to share entries across runs")};
    default:
      return {v1::CACHE_SCOPE_RUN, ids.run_id, ""};
  }
}

}  // namespace taskboard::cache
