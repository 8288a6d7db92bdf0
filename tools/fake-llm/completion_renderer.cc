#include "tools/fake-llm/completion_renderer.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace taskboard::fake_llm {
namespace {

int64_t RoughTokens(size_t chars) { return static_cast<int64_t>((chars + 3) / 4); }

std::string ToolCallId(const CompletionContext& context, size_t index) {
  return absl::StrCat("call_", context.first_tool_call_number + static_cast<int64_t>(index));
}

const char* FinishReason(const ResponseSpec& respond) {
  return respond.tool_calls.empty() ? "stop" : "tool_calls";
}

// Splits `text` into pieces of `chars` code points, never inside a UTF-8
// sequence.
std::vector<std::string> Pieces(const std::string& text, int64_t chars) {
  std::vector<std::string> pieces;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = start;
    for (int64_t n = 0; n < chars && end < text.size(); ++n) {
      ++end;
      while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    }
    pieces.push_back(text.substr(start, end - start));
    start = end;
  }
  return pieces;
}

Json ChunkEnvelope(const CompletionContext& context) {
  return Json{{"id", context.id},
              {"object", "chat.completion.chunk"},
              {"created", context.created},
              {"model", context.model}};
}

Json DeltaChunk(const CompletionContext& context, Json delta, Json finish_reason = nullptr) {
  Json chunk = ChunkEnvelope(context);
  chunk["choices"] = Json::array(
      {Json{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", finish_reason}}});
  return chunk;
}

std::string SseEvent(absl::string_view data) { return absl::StrCat("data: ", data, "\n\n"); }

std::string MalformedJson(const CompletionContext& context) {
  // A chat.completion cut off mid-string: what a proxy dropping the
  // connection (or a broken server) produces.
  return absl::StrCat("{\"id\":\"", context.id,
                      "\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
                      "\"message\":{\"role\":\"assistant\",\"content\":\"trunc");
}

HttpReply RenderScriptedError(const ErrorSpec& error) {
  HttpReply reply;
  if (error.body.has_value()) {
    reply.status = error.status;
    if (error.body->is_string()) {
      reply.content_type = "text/plain";
      reply.body = error.body->get<std::string>();
    } else {
      reply.body = DumpJson(*error.body);
    }
  } else if (error.status == 429) {
    reply = RenderError(error.status, "fake-llm: scripted rate limit (429)", "rate_limit_exceeded",
                        "rate_limit_exceeded");
  } else {
    reply = RenderError(error.status, absl::StrCat("fake-llm: scripted error ", error.status),
                        error.status >= 500 ? "server_error" : "invalid_request_error", "");
  }
  if (error.retry_after_seconds.has_value()) {
    reply.headers.emplace_back("Retry-After", absl::StrCat(*error.retry_after_seconds));
  }
  return reply;
}

}  // namespace

Json RenderUsage(const ResponseSpec& respond, const CompletionContext& context) {
  size_t completion_chars = respond.content.value_or("").size();
  for (const ToolCallSpec& call : respond.tool_calls) {
    completion_chars += call.name.size() + call.arguments.size();
  }
  const int64_t prompt = respond.prompt_tokens.value_or(RoughTokens(context.prompt_chars));
  const int64_t completion = respond.completion_tokens.value_or(RoughTokens(completion_chars));
  return Json{{"prompt_tokens", prompt},
              {"completion_tokens", completion},
              {"total_tokens", prompt + completion}};
}

int64_t ReportedTokens(const ResponseSpec& respond, size_t prompt_chars) {
  if (respond.error.has_value() || respond.malformed || respond.raw_body.has_value()) return 0;
  CompletionContext context;
  context.prompt_chars = prompt_chars;
  return RenderUsage(respond, context)["total_tokens"].get<int64_t>();
}

Json RenderCompletion(const ResponseSpec& respond, const CompletionContext& context) {
  Json message{{"role", "assistant"}};
  message["content"] = respond.content.has_value() ? Json(*respond.content) : Json(nullptr);
  if (!respond.tool_calls.empty()) {
    Json calls = Json::array();
    for (size_t i = 0; i < respond.tool_calls.size(); ++i) {
      const ToolCallSpec& call = respond.tool_calls[i];
      calls.push_back(Json{{"id", ToolCallId(context, i)},
                           {"type", "function"},
                           {"function", Json{{"name", call.name}, {"arguments", call.arguments}}}});
    }
    message["tool_calls"] = std::move(calls);
  }
  return Json{{"id", context.id},
              {"object", "chat.completion"},
              {"created", context.created},
              {"model", context.model},
              {"choices", Json::array({Json{{"index", 0},
                                            {"message", std::move(message)},
                                            {"finish_reason", FinishReason(respond)}}})},
              {"usage", RenderUsage(respond, context)}};
}

std::vector<Json> RenderChunks(const ResponseSpec& respond, const CompletionContext& context,
                               bool include_usage) {
  std::vector<Json> chunks;
  chunks.push_back(DeltaChunk(context, Json{{"role", "assistant"}, {"content", ""}}));
  if (respond.content.has_value()) {
    for (std::string& piece : Pieces(*respond.content, respond.chunk_chars)) {
      chunks.push_back(DeltaChunk(context, Json{{"content", std::move(piece)}}));
    }
  }
  for (size_t i = 0; i < respond.tool_calls.size(); ++i) {
    const ToolCallSpec& call = respond.tool_calls[i];
    Json opening{{"index", i},
                 {"id", ToolCallId(context, i)},
                 {"type", "function"},
                 {"function", Json{{"name", call.name}, {"arguments", ""}}}};
    chunks.push_back(DeltaChunk(context, Json{{"tool_calls", Json::array({opening})}}));
    for (std::string& piece : Pieces(call.arguments, respond.chunk_chars)) {
      Json delta{{"index", i}, {"function", Json{{"arguments", std::move(piece)}}}};
      chunks.push_back(DeltaChunk(context, Json{{"tool_calls", Json::array({delta})}}));
    }
  }
  chunks.push_back(DeltaChunk(context, Json::object(), FinishReason(respond)));
  if (include_usage) {
    Json usage = ChunkEnvelope(context);
    usage["choices"] = Json::array();
    usage["usage"] = RenderUsage(respond, context);
    chunks.push_back(std::move(usage));
  }
  return chunks;
}

HttpReply RenderReply(const ResponseSpec& respond, const CompletionContext& context, bool stream,
                      bool include_usage) {
  if (respond.error.has_value()) return RenderScriptedError(*respond.error);
  HttpReply reply;
  if (respond.raw_body.has_value()) {
    // Plain JSON even to a streaming request, like a server ignoring `stream`.
    reply.body = respond.raw_body->is_string() ? respond.raw_body->get<std::string>()
                                               : DumpJson(*respond.raw_body);
    return reply;
  }
  if (!stream) {
    reply.body =
        respond.malformed ? MalformedJson(context) : DumpJson(RenderCompletion(respond, context));
    return reply;
  }
  reply.content_type = "text/event-stream";
  reply.headers.emplace_back("Cache-Control", "no-cache");
  if (respond.malformed) {
    reply.events.push_back(SseEvent(MalformedJson(context)));
  } else {
    for (const Json& chunk : RenderChunks(respond, context, include_usage)) {
      reply.events.push_back(SseEvent(DumpJson(chunk)));
    }
  }
  reply.events.push_back(SseEvent("[DONE]"));
  return reply;
}

HttpReply RenderError(int status, absl::string_view message, absl::string_view type,
                      absl::string_view code, absl::string_view param) {
  HttpReply reply;
  reply.status = status;
  reply.body = DumpJson(
      Json{{"error", Json{{"message", std::string(message)},
                          {"type", std::string(type)},
                          {"param", param.empty() ? Json(nullptr) : Json(std::string(param))},
                          {"code", code.empty() ? Json(nullptr) : Json(std::string(code))}}}});
  return reply;
}

}  // namespace taskboard::fake_llm
