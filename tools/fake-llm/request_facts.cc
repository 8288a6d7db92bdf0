#include "tools/fake-llm/request_facts.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace taskboard::fake_llm {
namespace {

// A message's `content`: a string, or OpenAI's list of parts of which the
// text parts count.
std::string MessageText(const Json& message) {
  if (!message.is_object() || !message.contains("content")) return "";
  const Json& content = message["content"];
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (content.is_array()) {
    for (const Json& part : content) {
      if (part.is_object() && part.contains("text") && part["text"].is_string()) {
        text += part["text"].get<std::string>();
      }
    }
  }
  return text;
}

void AppendLine(std::string& to, const std::string& text) {
  if (!to.empty()) to += "\n";
  to += text;
}

}  // namespace

RequestFacts ReadRequestFacts(const Json& request) {
  RequestFacts facts;
  if (!request.is_object()) return facts;
  if (request.contains("model") && request["model"].is_string()) {
    facts.model = request["model"].get<std::string>();
  }
  facts.stream =
      request.contains("stream") && request["stream"].is_boolean() && request["stream"].get<bool>();
  if (request.contains("stream_options") && request["stream_options"].is_object()) {
    const Json& options = request["stream_options"];
    facts.include_usage = options.contains("include_usage") &&
                          options["include_usage"].is_boolean() &&
                          options["include_usage"].get<bool>();
  }
  if (!request.contains("messages") || !request["messages"].is_array()) return facts;
  for (const Json& message : request["messages"]) {
    const std::string text = MessageText(message);
    AppendLine(facts.all_content, text);
    std::string role;
    if (message.is_object() && message.contains("role") && message["role"].is_string()) {
      role = message["role"].get<std::string>();
    }
    if (role == "user") {
      facts.last_user = text;
    } else if (role == "system" || role == "developer") {
      AppendLine(facts.system, text);
    } else if (role == "tool" || role == "function") {
      facts.has_tool_results = true;
      AppendLine(facts.tool_results, text);
    } else if (role == "assistant") {
      ++facts.turn;
    }
  }
  return facts;
}

}  // namespace taskboard::fake_llm
