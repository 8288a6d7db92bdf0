#include "tools/fake-llm/chat_handler.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "tools/fake-llm/request_facts.h"

namespace taskboard::fake_llm {
namespace {

constexpr size_t kQuotedUserChars = 300;

std::string Quoted(const std::string& text) {
  if (text.size() <= kQuotedUserChars) return DumpJson(Json(text));
  return DumpJson(Json(text.substr(0, kQuotedUserChars) + "..."));
}

}  // namespace

ChatHandler::ChatHandler(Script script, RequestLog* log, std::function<int64_t()> now_seconds)
    : rules_(std::move(script)), log_(log), now_seconds_(std::move(now_seconds)) {}

ChatAnswer ChatHandler::Handle(absl::string_view path, absl::string_view body) {
  const int64_t seq = ++requests_;
  Json entry{{"seq", seq}, {"path", std::string(path)}};
  ChatAnswer answer;
  absl::StatusOr<Json> request = ParseJson(body);
  if (!request.ok()) {
    answer.reply = RenderError(
        400, absl::StrCat("fake-llm: the request body is not JSON: ", request.status().message()),
        "invalid_request_error", "");
    entry["status"] = 400;
    entry["request_text"] = std::string(body);
    log_->Append(std::move(entry));
    return answer;
  }
  entry["rule"] = nullptr;
  if (!request->is_object() || !request->contains("messages") ||
      !(*request)["messages"].is_array()) {
    answer.reply =
        RenderError(400, "'messages' is required: a list of {role, content} chat messages",
                    "invalid_request_error", "", "messages");
    entry["status"] = 400;
    entry["request"] = std::move(*request);
    log_->Append(std::move(entry));
    return answer;
  }

  const RequestFacts facts = ReadRequestFacts(*request);
  std::optional<size_t> index = rules_.Select(facts);
  if (!index.has_value()) {
    answer.reply =
        RenderError(500,
                    absl::StrCat("fake-llm: no rule matched the request (last user "
                                 "message: ",
                                 Quoted(facts.last_user), "); add a rule for it to the script"),
                    "fake_llm_no_match", "no_rule_matched");
  } else {
    const Rule& rule = rules_.rule(*index);
    CompletionContext context;
    context.id = absl::StrCat("chatcmpl-fake-", seq);
    context.created = now_seconds_();
    context.model = facts.model.empty() ? "fake-llm" : facts.model;
    context.first_tool_call_number =
        tool_calls_.fetch_add(static_cast<int64_t>(rule.respond.tool_calls.size())) + 1;
    context.prompt_chars = facts.all_content.size();
    answer.reply = RenderReply(rule.respond, context, facts.stream, facts.include_usage);
    answer.delay_ms = rule.respond.delay_ms;
    entry["rule"] = *index;
    if (!rule.name.empty()) entry["rule_name"] = rule.name;
  }
  entry["status"] = answer.reply.status;
  entry["request"] = std::move(*request);
  log_->Append(std::move(entry));
  return answer;
}

}  // namespace taskboard::fake_llm
