#include "scheduler/auth/tokens_file.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/lower_hex.h"
#include "common/sha256.h"
#include "common/yaml_json.h"

namespace taskboard::auth {
namespace {

bool IsTenantName(absl::string_view tenant) {
  if (tenant.empty() || tenant.size() > 64) return false;
  for (char c : tenant) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

// A string field of `entry`, "" when absent; INVALID_ARGUMENT when not a string.
absl::StatusOr<std::string> StringField(const Json& entry, const char* field) {
  auto it = entry.find(field);
  if (it == entry.end() || it->is_null()) return std::string();
  if (!it->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat("`", field, "` must be a string"));
  }
  return it->get<std::string>();
}

// The hash and principal of one entry; errors say what to fix in it.
absl::Status ParseEntry(const Json& entry, std::string* hash, Principal* principal) {
  if (!entry.is_object()) {
    return absl::InvalidArgumentError("is not a mapping of token/sha256, name, role, tenant");
  }
  for (const auto& [key, value] : entry.items()) {
    if (key != "token" && key != "sha256" && key != "name" && key != "role" && key != "tenant") {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown field `", key, "`; the fields are token or sha256, name, role, tenant"));
    }
  }
  absl::StatusOr<std::string> token = StringField(entry, "token");
  absl::StatusOr<std::string> sha256 = StringField(entry, "sha256");
  absl::StatusOr<std::string> name = StringField(entry, "name");
  absl::StatusOr<std::string> role = StringField(entry, "role");
  absl::StatusOr<std::string> tenant = StringField(entry, "tenant");
  for (const auto* field : {&token, &sha256, &name, &role, &tenant}) {
    if (!field->ok()) return field->status();
  }
  if (token->empty() == sha256->empty()) {
    return absl::InvalidArgumentError(
        "give exactly one of `token` (the bearer token) or `sha256` (its hex SHA-256, e.g. "
        "`printf %s TOKEN | sha256sum`)");
  }
  if (!token->empty()) {
    if (token->size() < kMinTokenLength) {
      return absl::InvalidArgumentError(
          absl::StrCat("`token` is shorter than ", kMinTokenLength,
                       " characters; generate one with `openssl rand -hex 32`"));
    }
    *hash = Sha256Hex(*token);
  } else {
    *hash = absl::AsciiStrToLower(*sha256);
    if (hash->size() != 64 || !IsLowerHex(*hash)) {
      return absl::InvalidArgumentError(
          "`sha256` must be 64 hex digits (the output of `printf %s TOKEN | sha256sum`)");
    }
  }
  if (name->empty()) return absl::InvalidArgumentError("`name` is missing");
  principal->name = *name;
  if (role->empty()) {
    return absl::InvalidArgumentError("`role` is missing; use client, worker or admin");
  }
  absl::StatusOr<Role> parsed = ParseRole(*role);
  if (!parsed.ok()) return parsed.status();
  principal->role = *parsed;
  if (tenant->empty() && principal->role == Role::kClient) {
    return absl::InvalidArgumentError(
        "a client needs a `tenant` (the runs, ledgers and cache entries it may use)");
  }
  if (!tenant->empty() && !IsTenantName(*tenant)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "`tenant` '", *tenant, "' must be 1 to 64 characters of letters, digits, '.', '_', '-'"));
  }
  principal->tenant = *tenant;
  return absl::OkStatus();
}

}  // namespace

const Principal* TokenTable::Find(absl::string_view token) const {
  auto it = by_hash_.find(Sha256Hex(token));
  return it == by_hash_.end() ? nullptr : &it->second;
}

absl::Status TokenTable::Add(std::string sha256_hex, Principal principal) {
  if (!by_hash_.try_emplace(std::move(sha256_hex), std::move(principal)).second) {
    return absl::AlreadyExistsError("the same token is listed twice");
  }
  return absl::OkStatus();
}

absl::StatusOr<TokenTable> ParseTokensFile(absl::string_view text) {
  absl::StatusOr<Json> document = ParseYamlAsJson(text);
  if (!document.ok()) return document.status();
  auto tokens = document->is_object() ? document->find("tokens") : document->end();
  if (!document->is_object() || tokens == document->end() || !tokens->is_array()) {
    return absl::InvalidArgumentError(
        "expected a mapping with a `tokens` list (docs/security.md shows the format)");
  }
  if (tokens->empty()) {
    return absl::InvalidArgumentError("`tokens` is empty: every call would be refused");
  }
  TokenTable table;
  int index = 0;
  for (const Json& entry : *tokens) {
    ++index;
    std::string hash;
    Principal principal;
    absl::Status parsed = ParseEntry(entry, &hash, &principal);
    if (parsed.ok()) parsed = table.Add(std::move(hash), principal);
    if (!parsed.ok()) {
      std::string name = entry.is_object() && entry.contains("name") && entry["name"].is_string()
                             ? absl::StrCat(" ('", entry["name"].get<std::string>(), "')")
                             : "";
      return absl::InvalidArgumentError(
          absl::StrCat("tokens entry ", index, name, ": ", parsed.message()));
    }
  }
  return table;
}

absl::StatusOr<TokenTable> LoadTokensFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot read the tokens file ", path,
                                            "; check the path given to --auth-tokens"));
  }
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<TokenTable> table = ParseTokensFile(text.str());
  if (!table.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tokens file ", path, ": ", table.status().message()));
  }
  return table;
}

}  // namespace taskboard::auth
