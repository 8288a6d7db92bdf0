#include "scheduler/flow/flow_options_decoder.h"

#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/flow/cache_if.h"
#include "scheduler/flow/flow_names.h"
#include "scheduler/flow/json_reader.h"

namespace taskboard::flow {
namespace {

constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();
constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

constexpr const char* kPolicyNames[] = {
    "none",  "declared_deps_only", "ancestors", "recent_trajectory", "all_completed", "compact",
    "custom"};

// Accepts snake_case and the seed's camelCase (`recentTrajectory`).
std::string CanonicalPolicyName(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') {
      out.push_back('_');
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else {
      out.push_back(c == '-' ? '_' : c);
    }
  }
  return out;
}

}  // namespace

absl::Span<const char* const> FlowPolicyNames() { return kPolicyNames; }

v1::CacheScope DecodeCacheScope(const Json& value, const std::string& path, FlowErrorList* errors) {
  if (value.is_string()) {
    if (auto scope = CacheScopeFromName(value.get_ref<const std::string&>())) return *scope;
  }
  errors->Add(path,
              absl::StrCat("must be one of run, request, session (got ", DumpJson(value), ")"));
  return v1::CACHE_SCOPE_UNSPECIFIED;
}

v1::RunBudget DecodeRunBudget(const Json& value, const std::string& path, FlowErrorList* errors) {
  v1::RunBudget budget;
  // Checked here rather than by JsonReader so the message shows the shape.
  if (!value.is_object()) {
    errors->Add(path, absl::StrCat("must be an object like {tokens: 2000000, usd: 5} (got ",
                                   DescribeJsonType(value), "); either limit may be left out"));
    return budget;
  }
  JsonReader reader(value, path, errors);
  if (auto tokens = reader.Int("tokens", 0, kMaxInt64)) budget.set_tokens(*tokens);
  if (auto usd = reader.Number("usd", 0)) budget.set_usd(*usd);
  reader.RejectUnknownFields();
  return budget;
}

v1::OnBudget DecodeOnBudget(const Json& value, const std::string& path, FlowErrorList* errors) {
  if (value.is_string()) {
    if (auto known = OnBudgetFromName(value.get_ref<const std::string&>())) return *known;
  }
  errors->Add(path, absl::StrCat("must be pause (the default: the run waits for a higher budget) "
                                 "or fail (the task fails) (got ",
                                 DumpJson(value), ")"));
  return v1::ON_BUDGET_UNSPECIFIED;
}

v1::FlowPolicy DecodeFlowPolicy(const Json& value, const std::string& path, FlowErrorList* errors) {
  v1::FlowPolicy policy;
  std::string name;
  const Json empty = Json::object();
  const Json* params = &empty;
  if (value.is_string()) {
    name = CanonicalPolicyName(value.get<std::string>());
  } else if (value.is_object()) {
    auto type = value.find("type");
    if (type == value.end() || !type->is_string()) {
      errors->Add(JoinPath(path, "type"), absl::StrCat("missing policy type; use one of ",
                                                       absl::StrJoin(kPolicyNames, ", ")));
      return policy;
    }
    name = CanonicalPolicyName(type->get<std::string>());
    params = &value;
  } else {
    errors->Add(path, absl::StrCat("must be a policy name or an object with `type` (got ",
                                   DescribeJsonType(value), ")"));
    return policy;
  }

  JsonReader reader(*params, path, errors);
  reader.Ignore("type");
  if (name == "none") {
    policy.mutable_none();
  } else if (name == "declared_deps_only") {
    policy.mutable_declared_deps_only();
  } else if (name == "ancestors") {
    policy.mutable_ancestors()->set_transitive(reader.Bool("transitive").value_or(false));
  } else if (name == "recent_trajectory") {
    auto* p = policy.mutable_recent_trajectory();
    p->set_n(static_cast<int32_t>(reader.Int("n", 1, kMaxInt32).value_or(8)));
    p->set_max_tokens(reader.Int("maxTokens", 0, kMaxInt64).value_or(0));
  } else if (name == "all_completed") {
    policy.mutable_all_completed()->set_max_tokens(
        reader.Int("maxTokens", 0, kMaxInt64).value_or(0));
  } else if (name == "compact") {
    auto* p = policy.mutable_compact();
    p->set_recent_n(static_cast<int32_t>(reader.Int("recentN", 0, kMaxInt32).value_or(8)));
    p->set_summarizer_agent(reader.String("summarizerAgent").value_or(""));
  } else if (name == "custom") {
    auto* p = policy.mutable_custom();
    p->set_deps(reader.Bool("deps").value_or(false));
    p->set_ancestors(reader.Bool("ancestors").value_or(false));
    p->set_errors(reader.Bool("errors").value_or(false));
    for (std::string& tool : reader.StringList("tools")) p->add_tools(std::move(tool));
    p->set_recent(static_cast<int32_t>(reader.Int("recent", 0, kMaxInt32).value_or(0)));
    p->set_max_tokens(reader.Int("maxTokens", 0, kMaxInt64).value_or(0));
    p->set_external(reader.String("external").value_or(""));
    p->set_external_timeout_ms(reader.Int("externalTimeoutMs", 1, 600000).value_or(0));
  } else {
    errors->Add(value.is_object() ? JoinPath(path, "type") : path,
                absl::StrCat("unknown flow policy '", name, "'; use one of ",
                             absl::StrJoin(kPolicyNames, ", ")));
    return policy;
  }
  reader.RejectUnknownFields();
  return policy;
}

v1::ToolCacheConfig DecodeToolCache(const Json& value, const std::string& path,
                                    FlowErrorList* errors) {
  v1::ToolCacheConfig config;
  JsonReader reader(value, path, errors);
  if (auto ttl = reader.Int("defaultTtlMs", 0, kMaxInt64)) config.set_default_ttl_ms(*ttl);
  if (const Json* scope = reader.Raw("defaultScope"); scope != nullptr && !scope->is_null()) {
    config.set_default_scope(DecodeCacheScope(*scope, reader.FieldPath("defaultScope"), errors));
  }
  if (auto max = reader.Int("maxEntries", 1, kMaxInt64)) config.set_max_entries(*max);
  if (const Json* tools = reader.Raw("tools"); tools != nullptr && !tools->is_null()) {
    const std::string tools_path = reader.FieldPath("tools");
    if (!tools->is_object()) {
      errors->Add(tools_path, absl::StrCat("must be an object of tool name -> rule (got ",
                                           DescribeJsonType(*tools), ")"));
    } else {
      for (const auto& [tool, rule_json] : tools->items()) {
        v1::ToolCacheRule& rule = (*config.mutable_tools())[tool];
        const std::string rule_path = JoinPath(tools_path, tool);
        if (rule_json.is_boolean()) {  // `read_file: false` turns caching off
          rule.set_enabled(rule_json.get<bool>());
          continue;
        }
        JsonReader rule_reader(rule_json, rule_path, errors);
        if (auto ttl = rule_reader.Int("ttlMs", 0, kMaxInt64)) rule.set_ttl_ms(*ttl);
        if (const Json* scope = rule_reader.Raw("scope"); scope != nullptr && !scope->is_null()) {
          rule.set_scope(DecodeCacheScope(*scope, rule_reader.FieldPath("scope"), errors));
        }
        for (std::string& field : rule_reader.StringList("keyFields")) {
          rule.add_key_fields(std::move(field));
        }
        if (auto cache_if = rule_reader.String("cacheIf")) {
          // Rejected here, at submit, rather than silently not caching later.
          if (absl::StatusOr<CacheIf> parsed = CacheIf::Parse(*cache_if); !parsed.ok()) {
            errors->Add(rule_reader.FieldPath("cacheIf"), std::string(parsed.status().message()));
          }
          rule.set_cache_if(*cache_if);
        }
        if (auto enabled = rule_reader.Bool("enabled")) rule.set_enabled(*enabled);
        rule_reader.RejectUnknownFields();
      }
    }
  }
  reader.RejectUnknownFields();
  return config;
}

}  // namespace taskboard::flow
