#include "worker/tools/mcp/mcp_server_file.h"

#include <algorithm>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "worker/base/child_environment.h"
#include "worker/tools/command_tool.h"
#include "worker/tools/tool.h"
#include "worker/tools/tool_cache_fields.h"

namespace taskboard::worker {
namespace {

constexpr const char* kTopFields[] = {"name", "mcp", "prefix", "allow", "timeout_seconds", "tools"};
constexpr const char* kStdioFields[] = {"command", "args", "pass_env"};
constexpr const char* kHttpFields[] = {"url", "headers"};

template <size_t N>
absl::Status CheckKnown(const Json& object, const char* const (&known)[N],
                        absl::string_view where) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(std::begin(known), std::end(known), key) == std::end(known)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown field '", where, key, "' (known fields: ", absl::StrJoin(known, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

const Json* Find(const Json& object, const char* field) {
  auto it = object.find(field);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

absl::StatusOr<std::vector<std::string>> Strings(const Json& value, absl::string_view field) {
  if (!value.is_array()) return WrongFieldType(field, "an array of strings", value);
  std::vector<std::string> out;
  for (const Json& item : value) {
    if (!item.is_string()) return WrongFieldType(field, "an array of strings", item);
    out.push_back(item.get<std::string>());
  }
  return out;
}

absl::Status ReadStdio(const Json& mcp, McpServerDefinition* def) {
  if (absl::Status known = CheckKnown(mcp, kStdioFields, "mcp."); !known.ok()) return known;
  const Json* command = Find(mcp, "command");
  if (command == nullptr || !command->is_string() ||
      command->get_ref<const std::string&>().empty()) {
    return absl::InvalidArgumentError(
        "field 'mcp.command' must be the server's program, such as \"npx\" or \"./server.py\"");
  }
  std::string program = command->get<std::string>();
  if (absl::StrContains(program, '/') && program[0] != '/') {
    program = (std::filesystem::absolute(def->source.parent_path()) / program)
                  .lexically_normal()
                  .string();
  }
  def->argv.push_back(std::move(program));
  if (const Json* args = Find(mcp, "args")) {
    absl::StatusOr<std::vector<std::string>> list = Strings(*args, "mcp.args");
    if (!list.ok()) return list.status();
    def->argv.insert(def->argv.end(), list->begin(), list->end());
  }
  if (const Json* pass_env = Find(mcp, "pass_env")) {
    absl::StatusOr<std::vector<std::string>> names = Strings(*pass_env, "mcp.pass_env");
    if (!names.ok()) return names.status();
    for (const std::string& name : *names) {
      if (absl::Status s = CheckPassThroughName(name); !s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("field 'mcp.pass_env': ", s.message()));
      }
    }
    def->pass_env = *std::move(names);
  }
  return absl::OkStatus();
}

// The worker sets these itself (docs/mcp.md#streamable-http-servers).
constexpr const char* kReservedHeaders[] = {
    "accept",         "content-type",         "content-length", "host",
    "mcp-session-id", "mcp-protocol-version", "last-event-id",  "transfer-encoding"};

absl::Status CheckHeaderName(const std::string& header) {
  const bool token = !header.empty() && header.size() <= 64 &&
                     std::all_of(header.begin(), header.end(), [](char c) {
                       return absl::ascii_isalnum(c) || c == '-' || c == '_';
                     });
  if (!token) {
    return absl::InvalidArgumentError(
        absl::StrCat("field 'mcp.headers': '", header,
                     "' is not a header name (1-64 letters, digits, '-' and '_')"));
  }
  const std::string lower = absl::AsciiStrToLower(header);
  if (std::find(std::begin(kReservedHeaders), std::end(kReservedHeaders), lower) !=
      std::end(kReservedHeaders)) {
    return absl::InvalidArgumentError(absl::StrCat("field 'mcp.headers': the worker sets '", header,
                                                   "' itself; remove it from the file"));
  }
  return absl::OkStatus();
}

absl::Status ReadHttp(const Json& mcp, McpServerDefinition* def) {
  if (absl::Status known = CheckKnown(mcp, kHttpFields, "mcp."); !known.ok()) return known;
  const Json* url = Find(mcp, "url");
  if (url == nullptr || !url->is_string() ||
      !(absl::StartsWith(url->get<std::string>(), "http://") ||
        absl::StartsWith(url->get<std::string>(), "https://"))) {
    return absl::InvalidArgumentError(
        "field 'mcp.url' must be the server's http:// or https:// address");
  }
  def->url = url->get<std::string>();
  if (const Json* headers = Find(mcp, "headers")) {
    if (!headers->is_object()) {
      return WrongFieldType("mcp.headers", "an object of header name -> environment variable name",
                            *headers);
    }
    for (const auto& [header, variable] : headers->items()) {
      if (absl::Status s = CheckHeaderName(header); !s.ok()) return s;
      if (!variable.is_string()) {
        return WrongFieldType(absl::StrCat("mcp.headers.", header),
                              "the name of an environment variable holding the value", variable);
      }
      if (absl::Status s = CheckPassThroughName(variable.get<std::string>()); !s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("field 'mcp.headers.", header, "': ", s.message()));
      }
      def->header_env.emplace_back(header, variable.get<std::string>());
    }
  }
  return absl::OkStatus();
}

absl::Status ReadFields(const Json& doc, McpServerDefinition* def) {
  if (absl::Status known = CheckKnown(doc, kTopFields, ""); !known.ok()) return known;
  if (const Json* name = Find(doc, "name")) {
    if (!name->is_string() || name->get_ref<const std::string&>().empty()) {
      return WrongFieldType("name", "a non-empty string", *name);
    }
    def->name = name->get<std::string>();
  }
  const Json* mcp = Find(doc, "mcp");
  if (mcp == nullptr || !mcp->is_object()) {
    return absl::InvalidArgumentError(
        "field 'mcp' must be an object: {command, args, pass_env} for a stdio server or "
        "{url, headers} for a Streamable HTTP one");
  }
  const bool stdio = mcp->contains("command");
  const bool http = mcp->contains("url");
  if (stdio == http) {
    return absl::InvalidArgumentError(
        "field 'mcp' needs exactly one of 'command' (a stdio server) and 'url' (a Streamable "
        "HTTP server)");
  }
  if (absl::Status read = stdio ? ReadStdio(*mcp, def) : ReadHttp(*mcp, def); !read.ok()) {
    return read;
  }
  if (const Json* prefix = Find(doc, "prefix")) {
    if (!prefix->is_string()) return WrongFieldType("prefix", "a string", *prefix);
    def->prefix = prefix->get<std::string>();
    if (!def->prefix.empty() && !IsValidToolName(def->prefix)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "field 'prefix': '", def->prefix, "' may hold only letters, digits, '-' and '_'"));
    }
  }
  if (const Json* allow = Find(doc, "allow")) {
    absl::StatusOr<std::vector<std::string>> names = Strings(*allow, "allow");
    if (!names.ok()) return names.status();
    def->allow = *std::move(names);
  }
  if (const Json* timeout = Find(doc, "timeout_seconds")) {
    if (!timeout->is_number_integer() || timeout->get<int64_t>() <= 0) {
      return WrongFieldType("timeout_seconds", "a whole number of seconds > 0", *timeout);
    }
    def->call_timeout = absl::Seconds(timeout->get<int64_t>());
  }
  if (const Json* tools = Find(doc, "tools")) {
    if (!tools->is_object()) {
      return WrongFieldType("tools", "an object of tool name -> cache settings", *tools);
    }
    for (const auto& [tool, settings] : tools->items()) {
      const std::string where = absl::StrCat("tools.", tool);
      if (!settings.is_object()) {
        return WrongFieldType(where, "an object of cacheable, ttl_ms, scope, key_fields", settings);
      }
      v1::ToolDeclaration decl;
      absl::Status read = CheckKnown(settings, kToolCacheFields, absl::StrCat(where, "."));
      if (read.ok()) read = ReadToolCacheFields(settings, &decl);
      if (!read.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("in '", where, "': ", read.message()));
      }
      def->tools[tool] = std::move(decl);
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool IsMcpServerDocument(const Json& doc) { return doc.is_object() && doc.contains("mcp"); }

absl::StatusOr<McpServerDefinition> ParseMcpServerDocument(const std::filesystem::path& path,
                                                           const Json& doc) {
  McpServerDefinition def;
  def.source = path;
  def.name = path.stem().string();
  if (absl::Status s = ReadFields(doc, &def); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("MCP server file ", path.string(), ": ", s.message()));
  }
  return def;
}

absl::StatusOr<std::vector<McpServerDefinition>> LoadMcpServerFiles(
    const std::filesystem::path& dir) {
  absl::StatusOr<std::vector<std::pair<std::filesystem::path, std::string>>> files =
      ReadToolFiles(dir);
  if (!files.ok()) return files.status();
  std::vector<McpServerDefinition> servers;
  for (const auto& [file, text] : *files) {
    absl::StatusOr<Json> doc = DecodeToolFile(file, text);
    if (!doc.ok()) return doc.status();
    if (!IsMcpServerDocument(*doc)) continue;
    absl::StatusOr<McpServerDefinition> def = ParseMcpServerDocument(file, *doc);
    if (!def.ok()) return def.status();
    servers.push_back(*std::move(def));
  }
  return servers;
}

}  // namespace taskboard::worker
