#include "worker/agents/chat_json.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/llm_call_usage.h"
#include "common/utf8.h"

namespace taskboard::worker {
namespace {

absl::StatusOr<Json> SchemaObject(absl::string_view text, absl::string_view what) {
  if (text.empty()) return Json{{"type", "object"}};
  absl::StatusOr<Json> schema = ParseJson(text);
  if (!schema.ok() || !schema->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " is not a JSON object schema: ", Snippet(text)));
  }
  return schema;
}

// A token count of `usage` as the scheduler bills it (common/llm_call_usage.h):
// a server that reports a negative count, or one past int64 (a JSON integer
// nlohmann holds unsigned), is held to [0, kMaxCallTokens], so a task's usage
// never shows negative or wrapped totals. nullopt when absent or not an
// integer.
std::optional<int64_t> TokenCount(const Json& usage, const char* key) {
  auto n = usage.find(key);
  if (n == usage.end() || !n->is_number_integer()) return std::nullopt;
  if (n->is_number_unsigned()) {
    return static_cast<int64_t>(
        std::min<uint64_t>(n->get<uint64_t>(), static_cast<uint64_t>(kMaxCallTokens)));
  }
  return CallTokens(n->get<int64_t>());
}

Json MessageJson(const v1::ChatMessage& message) {
  Json json = {{"role", message.role()}};
  // OpenAI wants content null (not "") on an assistant message that only
  // calls tools; some compatible servers reject "" there.
  if (message.content().empty() && message.tool_calls_size() > 0) {
    json["content"] = nullptr;
  } else {
    json["content"] = message.content();
  }
  if (message.tool_calls_size() > 0) {
    Json calls = Json::array();
    for (const v1::ChatToolCall& call : message.tool_calls()) {
      calls.push_back(
          {{"id", call.id()},
           {"type", "function"},
           {"function", {{"name", call.name()}, {"arguments", call.arguments_json()}}}});
    }
    json["tool_calls"] = std::move(calls);
  }
  if (!message.tool_call_id().empty()) json["tool_call_id"] = message.tool_call_id();
  if (!message.name().empty()) json["name"] = message.name();
  return json;
}

}  // namespace

std::string StringField(const Json& doc, const char* key) {
  if (!doc.is_object()) return "";
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string Snippet(absl::string_view text, size_t max_bytes) {
  const bool cut = text.size() > max_bytes;
  std::string line = absl::StrReplaceAll(ToValidUtf8(text.substr(0, max_bytes)), {{"\n", " "}});
  return cut ? absl::StrCat(line, "...") : line;
}

absl::StatusOr<std::string> ChatRequestBody(const ChatRequest& request) {
  Json body = {{"model", request.model}};
  Json messages = Json::array();
  for (const v1::ChatMessage& message : request.messages) messages.push_back(MessageJson(message));
  body["messages"] = std::move(messages);
  if (!request.tools.empty()) {
    Json tools = Json::array();
    for (const v1::ToolDeclaration& tool : request.tools) {
      absl::StatusOr<Json> schema =
          SchemaObject(tool.parameters_schema_json(),
                       absl::StrCat("the parameters of tool '", tool.name(), "'"));
      if (!schema.ok()) return schema.status();
      tools.push_back({{"type", "function"},
                       {"function",
                        {{"name", tool.name()},
                         {"description", tool.description()},
                         {"parameters", *std::move(schema)}}}});
    }
    body["tools"] = std::move(tools);
  }
  if (!request.response_schema_json.empty()) {
    absl::StatusOr<Json> schema =
        SchemaObject(request.response_schema_json, "the task's output schema");
    if (!schema.ok()) return schema.status();
    body["response_format"] = {
        {"type", "json_schema"},
        {"json_schema", {{"name", "output"}, {"schema", *std::move(schema)}}}};
  }
  if (request.temperature.has_value()) body["temperature"] = *request.temperature;
  if (request.max_tokens.has_value()) body["max_tokens"] = *request.max_tokens;
  if (!request.reasoning_effort.empty()) {
    Json* field = &body;
    for (absl::string_view key : absl::StrSplit(request.reasoning_field, '.')) {
      field = &(*field)[std::string(key)];
    }
    *field = request.reasoning_effort;
  }
  if (request.stream) {
    body["stream"] = true;
    // Without this, streamed responses carry no token counts.
    body["stream_options"] = {{"include_usage", true}};
  }
  return DumpJson(body);
}

void ReadUsageAndModel(const Json& doc, ChatResponse* response) {
  if (std::string model = StringField(doc, "model"); !model.empty()) response->model = model;
  if (!doc.is_object()) return;
  auto usage = doc.find("usage");
  if (usage == doc.end() || !usage->is_object()) return;
  if (std::optional<int64_t> n = TokenCount(*usage, "prompt_tokens"); n.has_value()) {
    response->prompt_tokens = *n;
  }
  if (std::optional<int64_t> n = TokenCount(*usage, "completion_tokens"); n.has_value()) {
    response->completion_tokens = *n;
  }
  if (auto details = usage->find("prompt_tokens_details");
      details != usage->end() && details->is_object()) {
    if (std::optional<int64_t> n = TokenCount(*details, "cached_tokens"); n.has_value()) {
      response->cached_tokens = *n;
    }
  }
  // Served from the cache means part of the prompt: never more than it.
  response->cached_tokens = CallCachedTokens(response->cached_tokens, response->prompt_tokens);
}

absl::StatusOr<ChatResponse> ParseChatResponse(absl::string_view body) {
  absl::StatusOr<Json> doc = ParseJson(body);
  if (!doc.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("the response is not valid JSON (",
                                                   doc.status().message(), "): ", Snippet(body)));
  }
  auto choices = doc->find("choices");
  if (!doc->is_object() || choices == doc->end() || !choices->is_array() || choices->empty() ||
      !(*choices)[0].is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the response has no `choices`: ", Snippet(body)));
  }
  const Json& choice = (*choices)[0];
  auto message = choice.find("message");
  if (message == choice.end() || !message->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the response's first choice has no `message`: ", Snippet(body)));
  }
  ChatResponse response;
  response.message.set_role("assistant");
  response.message.set_content(StringField(*message, "content"));
  if (auto calls = message->find("tool_calls"); calls != message->end() && calls->is_array()) {
    for (const Json& call : *calls) {
      if (!call.is_object()) continue;
      auto function_it = call.find("function");
      if (function_it == call.end() || !function_it->is_object()) continue;
      const Json& function = *function_it;
      v1::ChatToolCall* out = response.message.add_tool_calls();
      out->set_id(StringField(call, "id"));
      out->set_name(StringField(function, "name"));
      // Some servers send the arguments as an object rather than JSON text.
      auto arguments = function.find("arguments");
      if (arguments != function.end()) {
        out->set_arguments_json(arguments->is_string() ? arguments->get<std::string>()
                                                       : DumpJson(*arguments));
      }
    }
  }
  response.finish_reason = StringField(choice, "finish_reason");
  ReadUsageAndModel(*doc, &response);
  return response;
}

}  // namespace taskboard::worker
