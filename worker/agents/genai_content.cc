#include "worker/agents/genai_content.h"

#include "common/json.h"
#include "common/otel/attributes.h"

namespace taskboard::worker {
namespace {

bool IsSystem(const v1::ChatMessage& message) {
  return message.role() == "system" || message.role() == "developer";
}

// The conventions' parts of one message: its text, its tool calls, or
// (role tool) the response to a call.
Json Parts(const v1::ChatMessage& message) {
  Json parts = Json::array();
  if (message.role() == "tool") {
    parts.push_back({{"type", "tool_call_response"},
                     {"id", message.tool_call_id()},
                     {"response", message.content()}});
    return parts;
  }
  if (!message.content().empty()) {
    parts.push_back({{"type", "text"}, {"content", message.content()}});
  }
  for (const v1::ChatToolCall& call : message.tool_calls()) {
    parts.push_back({{"type", "tool_call"},
                     {"id", call.id()},
                     {"name", call.name()},
                     {"arguments", call.arguments_json()}});
  }
  return parts;
}

std::string Bounded(const Json& value) {
  return otel::BoundedUtf8(DumpJson(value), kMaxGenAiContentBytes);
}

}  // namespace

std::string GenAiSystemInstructions(const std::vector<v1::ChatMessage>& messages) {
  Json parts = Json::array();
  for (const v1::ChatMessage& message : messages) {
    if (IsSystem(message)) parts.push_back({{"type", "text"}, {"content", message.content()}});
  }
  return parts.empty() ? "" : Bounded(parts);
}

std::string GenAiInputMessages(const std::vector<v1::ChatMessage>& messages) {
  Json list = Json::array();
  for (const v1::ChatMessage& message : messages) {
    if (!IsSystem(message)) list.push_back({{"role", message.role()}, {"parts", Parts(message)}});
  }
  return list.empty() ? "" : Bounded(list);
}

std::string GenAiOutputMessages(const ChatResponse& response) {
  Json message = {{"role", "assistant"}, {"parts", Parts(response.message)}};
  if (!response.finish_reason.empty()) message["finish_reason"] = response.finish_reason;
  return Bounded(Json::array({message}));
}

}  // namespace taskboard::worker
