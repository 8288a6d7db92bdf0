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

// Reads one AppendComponent-encoded component off the front of `in`.
std::optional<absl::string_view> ConsumeComponent(absl::string_view& in) {
  if (in.size() < 4) return std::nullopt;
  uint32_t length = 0;
  for (int i = 0; i < 4; ++i) length = (length << 8) | static_cast<unsigned char>(in[i]);
  if (length > in.size() - 4) return std::nullopt;
  absl::string_view value = in.substr(4, length);
  in.remove_prefix(4 + length);
  return value;
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

std::optional<ScopeOwner> OwnerOfScopePrefix(absl::string_view prefix) {
  std::optional<absl::string_view> tenant = ConsumeComponent(prefix);
  if (!tenant.has_value()) return std::nullopt;
  std::optional<absl::string_view> scope_name = ConsumeComponent(prefix);
  if (!scope_name.has_value()) return std::nullopt;
  ScopeOwner owner;
  owner.tenant = std::string(*tenant);
  for (v1::CacheScope scope :
       {v1::CACHE_SCOPE_RUN, v1::CACHE_SCOPE_REQUEST, v1::CACHE_SCOPE_SESSION}) {
    if (CacheScopeKeyName(scope) == *scope_name) {
      owner.scope = scope;
      return owner;
    }
  }
  return std::nullopt;
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
