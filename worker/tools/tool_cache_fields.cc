#include "worker/tools/tool_cache_fields.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"

namespace taskboard::worker {

absl::Status WrongFieldType(absl::string_view field, absl::string_view expected,
                            const Json& value) {
  return absl::InvalidArgumentError(
      absl::StrCat("field '", field, "' must be ", expected, ", got ", DumpJson(value)));
}

absl::Status ReadToolCacheFields(const Json& object, v1::ToolDeclaration* decl) {
  auto find = [&object](const char* field) -> const Json* {
    auto it = object.find(field);
    return it == object.end() || it->is_null() ? nullptr : &*it;
  };
  if (const Json* cacheable = find("cacheable")) {
    if (!cacheable->is_boolean()) return WrongFieldType("cacheable", "a bool", *cacheable);
    decl->set_cacheable(cacheable->get<bool>());
  }
  if (const Json* ttl = find("ttl_ms")) {
    // A declaration cannot say "never serve" (0 reads as "the scheduler's
    // default"); a flow's toolCache rule can.
    if (!ttl->is_number_integer() || ttl->get<int64_t>() <= 0) {
      return WrongFieldType("ttl_ms", "a whole number of milliseconds > 0", *ttl);
    }
    decl->set_default_ttl_ms(ttl->get<int64_t>());
  }
  if (const Json* scope = find("scope")) {
    const std::string name = scope->is_string() ? scope->get<std::string>() : "";
    if (name == "run") {
      decl->set_default_scope(v1::CACHE_SCOPE_RUN);
    } else if (name == "request") {
      decl->set_default_scope(v1::CACHE_SCOPE_REQUEST);
    } else if (name == "session") {
      decl->set_default_scope(v1::CACHE_SCOPE_SESSION);
    } else {
      return WrongFieldType("scope", "one of run, request, session", *scope);
    }
  }
  if (const Json* key_fields = find("key_fields")) {
    if (!key_fields->is_array()) {
      return WrongFieldType("key_fields", "an array of strings", *key_fields);
    }
    for (const Json& field : *key_fields) {
      if (!field.is_string()) return WrongFieldType("key_fields", "an array of strings", field);
      decl->add_key_fields(field.get<std::string>());
    }
  }
  return absl::OkStatus();
}

}  // namespace taskboard::worker
