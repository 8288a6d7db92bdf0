#include "scheduler/cache/cache_key.h"

#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/canonical_json.h"
#include "common/json.h"
#include "common/sha256.h"

namespace taskboard::cache {
namespace {

void AppendComponent(std::string& out, absl::string_view value) {
  const auto length = static_cast<uint32_t>(value.size());
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(length >> shift));
  out.append(value.data(), value.size());
}

absl::string_view JsonTypeName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::object:
      return "an object";
    default:
      return "a number";
  }
}

}  // namespace

absl::string_view CacheScopeKeyName(v1::CacheScope scope) {
  switch (scope) {
    case v1::CACHE_SCOPE_REQUEST:
      return "request";
    case v1::CACHE_SCOPE_SESSION:
      return "session";
    default:
      return "run";
  }
}

std::string ScopePrefix(absl::string_view tenant, v1::CacheScope scope,
                        absl::string_view scope_id) {
  std::string out;
  AppendComponent(out, tenant);
  AppendComponent(out, CacheScopeKeyName(scope));
  AppendComponent(out, scope_id);
  return out;
}

absl::StatusOr<std::string> ArgsDigest(absl::string_view args_json,
                                       const std::vector<std::string>& key_fields) {
  absl::StatusOr<Json> args = ParseJson(args_json);
  if (!args.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tool arguments must be a JSON object (got invalid JSON: ", args.status().message(), ")"));
  }
  if (!args->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tool arguments must be a JSON object (got ", JsonTypeName(*args), ")"));
  }
  if (key_fields.empty()) return Sha256Hex(CanonicalJson(*args));
  Json restricted = Json::object();
  for (const std::string& field : key_fields) {
    if (auto it = args->find(field); it != args->end()) restricted[field] = *it;
  }
  return Sha256Hex(CanonicalJson(restricted));
}

absl::StatusOr<CacheKey> MakeCacheKey(absl::string_view tenant, v1::CacheScope scope,
                                      absl::string_view scope_id, absl::string_view tool_name,
                                      absl::string_view args_json,
                                      const std::vector<std::string>& key_fields) {
  absl::StatusOr<std::string> digest = ArgsDigest(args_json, key_fields);
  if (!digest.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tool '", tool_name, "': ", digest.status().message()));
  }
  CacheKey out;
  out.scope_prefix = ScopePrefix(tenant, scope, scope_id);
  out.key = out.scope_prefix;
  AppendComponent(out.key, tool_name);
  AppendComponent(out.key, *digest);
  return out;
}

}  // namespace taskboard::cache
