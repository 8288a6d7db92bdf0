#include "worker/tools/mcp/mcp_tool.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log/log.h"
#include "worker/tools/flow_state.h"

namespace taskboard::worker {
namespace {

// The text blocks of an error result, for a one-paragraph message.
std::string ErrorText(const Json& content) {
  std::vector<std::string> texts;
  if (content.is_array()) {
    for (const Json& block : content) {
      if (block.is_object() && block.value("type", "") == "text" && block.contains("text") &&
          block["text"].is_string()) {
        texts.push_back(block["text"].get<std::string>());
      }
    }
  }
  std::string text = texts.empty() ? "(no text)" : absl::StrJoin(texts, " ");
  if (text.size() > 2000) text = absl::StrCat(text.substr(0, 2000), "...");
  return text;
}

bool Hint(const Json& annotations, const char* name) {
  return annotations.is_object() && annotations.contains(name) && annotations[name] == true;
}

}  // namespace

McpTool::McpTool(std::shared_ptr<McpClient> client, std::string server_tool_name,
                 v1::ToolDeclaration declaration)
    : client_(std::move(client)),
      server_tool_name_(std::move(server_tool_name)),
      declaration_(std::move(declaration)) {}

std::string McpTool::source() const {
  return absl::StrCat("MCP server '", client_->definition().name, "' (",
                      client_->definition().source.string(), ")");
}

absl::StatusOr<std::string> McpTool::Execute(absl::string_view args_json,
                                             const ToolContext& context) const {
  absl::StatusOr<Json> args = ParseJson(args_json.empty() ? "{}" : args_json);
  if (!args.ok() || !args->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the arguments of tool '", name(), "' must be a JSON object"));
  }
  // The task's FlowState in `_meta` (docs/mcp.md#flowstate, decision 208):
  // its identity for every server; the socket and task token that let it
  // use run storage only for a stdio server, which runs here as our user;
  // a remote HTTP server never gets the token.
  std::optional<Json> meta;
  if (context.flow_state != nullptr) {
    Json state = context.flow_state->IdentityJson();
    if (!client_->definition().argv.empty()) {
      for (const auto& [name, value] : context.flow_state->tool_environment) state[name] = value;
    }
    meta = Json{{"taskboard/flow_state", std::move(state)}};
  }
  absl::StatusOr<Json> result = client_->CallTool(server_tool_name_, *args, context.cancel,
                                                  meta.has_value() ? &*meta : nullptr);
  if (!result.ok()) return result.status();
  return McpToolResultJson(
      *result,
      absl::StrCat("MCP server '", client_->definition().name, "', tool '", server_tool_name_, "'"),
      client_->options().max_result_bytes);
}

absl::StatusOr<std::string> McpToolResultJson(const Json& result, absl::string_view who,
                                              size_t max_bytes) {
  auto content = result.find("content");
  if (content == result.end() || !content->is_array()) {
    return absl::UnknownError(absl::StrCat(who, ": the result has no 'content' array"));
  }
  if (auto is_error = result.find("isError"); is_error != result.end() && *is_error == true) {
    return absl::UnknownError(absl::StrCat(who, " failed: ", ErrorText(*content)));
  }
  Json out = {{"content", *content}};
  if (auto structured = result.find("structuredContent");
      structured != result.end() && !structured->is_null()) {
    out["structuredContent"] = *structured;
  }
  std::string text = DumpJson(out);
  if (text.size() > max_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(who, ": the result is ", text.size(),
                                                     " bytes, more than the limit of ", max_bytes));
  }
  return text;
}

std::vector<std::unique_ptr<Tool>> MakeMcpTools(const std::shared_ptr<McpClient>& client,
                                                const std::vector<McpToolInfo>& listed) {
  const McpServerDefinition& def = client->definition();
  std::vector<std::unique_ptr<Tool>> tools;
  std::vector<std::string> hinted;
  for (const McpToolInfo& info : listed) {
    if (def.allow.has_value() &&
        std::find(def.allow->begin(), def.allow->end(), info.name) == def.allow->end()) {
      continue;
    }
    const std::string offered = absl::StrCat(def.prefix, info.name);
    if (!IsValidToolName(offered)) {
      log::Warn("an MCP tool's name is not a valid tool name; not offered")
          .With("server", def.name)
          .With("tool", offered)
          .With("hint", "tool names are 1-64 letters, digits, '-', '_'");
      continue;
    }
    v1::ToolDeclaration decl;
    if (auto it = def.tools.find(info.name); it != def.tools.end()) decl = it->second;
    decl.set_name(offered);
    decl.set_description(info.description);
    decl.set_parameters_schema_json(DumpJson(info.input_schema));
    if (!decl.cacheable() &&
        (Hint(info.annotations, "readOnlyHint") || Hint(info.annotations, "idempotentHint"))) {
      hinted.push_back(offered);
    }
    tools.push_back(std::make_unique<McpTool>(client, info.name, std::move(decl)));
  }
  if (!hinted.empty()) {
    // Shown, never trusted: a server's annotations are its own claims.
    log::Info(
        "MCP tools that call themselves read-only or idempotent are not cached unless "
        "their server file says cacheable: true")
        .With("server", def.name)
        .With("tools", absl::StrJoin(hinted, ","));
  }
  log::Info("offering an MCP server's tools")
      .With("server", def.name)
      .With("listed", static_cast<int64_t>(listed.size()))
      .With("offered", static_cast<int64_t>(tools.size()));
  return tools;
}

}  // namespace taskboard::worker
