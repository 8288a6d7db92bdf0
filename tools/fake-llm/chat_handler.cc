#include "tools/fake-llm/chat_handler.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace taskboard::fake_llm {
namespace {

constexpr size_t kQuotedUserChars = 300;

std::string Quoted(const std::string& text) {
  if (text.size() <= kQuotedUserChars) return DumpJson(Json(text));
  return DumpJson(Json(text.substr(0, kQuotedUserChars) + "..."));
}

bool IsChatRequest(const Json& request) {
  return request.is_object() && request.contains("messages") && request["messages"].is_array();
}

}  // namespace

ChatHandler::ChatHandler(Script script, RequestLog* log, std::function<absl::Time()> now,
                         const RateLimitOptions& limits)
    : rules_(std::move(script)),
      log_(log),
      now_(std::move(now)),
      limits_(limits),
      limit_headers_(RateLimitHeaders(limits)) {}

ChatHandler::Admission ChatHandler::Admit(const std::optional<RequestFacts>& facts) {
  absl::MutexLock lock(&admission_mutex_);
  const absl::Time now = now_();
  Admission admission;
  admission.refusal = limits_.Check(now);
  if (admission.refusal.has_value()) {
    ++rate_limited_;
    return admission;
  }
  ++admitted_;
  if (facts.has_value()) admission.rule = rules_.Select(*facts);
  limits_.Charge(
      now, admission.rule.has_value()
               ? ReportedTokens(rules_.rule(*admission.rule).respond, facts->all_content.size())
               : 0);
  return admission;
}

ChatAnswer ChatHandler::Handle(absl::string_view path, absl::string_view body) {
  const int64_t seq = ++requests_;
  Json entry{{"seq", seq}, {"path", std::string(path)}};
  absl::StatusOr<Json> request = ParseJson(body);
  std::optional<RequestFacts> facts;
  if (request.ok() && IsChatRequest(*request)) facts = ReadRequestFacts(*request);

  const Admission admission = Admit(facts);
  ChatAnswer answer;
  if (admission.refusal.has_value()) {
    answer.reply = RenderRateLimited(*admission.refusal);
    entry["rule"] = nullptr;
    entry["rule_name"] = kRateLimitRuleName;
  } else if (!request.ok()) {
    answer.reply = RenderError(
        400, absl::StrCat("fake-llm: the request body is not JSON: ", request.status().message()),
        "invalid_request_error", "");
  } else if (!facts.has_value()) {
    entry["rule"] = nullptr;
    answer.reply =
        RenderError(400, "'messages' is required: a list of {role, content} chat messages",
                    "invalid_request_error", "", "messages");
  } else if (!admission.rule.has_value()) {
    entry["rule"] = nullptr;
    answer.reply =
        RenderError(500,
                    absl::StrCat("fake-llm: no rule matched the request (last user "
                                 "message: ",
                                 Quoted(facts->last_user), "); add a rule for it to the script"),
                    "fake_llm_no_match", "no_rule_matched");
  } else {
    const Rule& rule = rules_.rule(*admission.rule);
    CompletionContext context;
    context.id = absl::StrCat("chatcmpl-fake-", seq);
    context.created = absl::ToUnixSeconds(now_());
    context.model = facts->model.empty() ? "fake-llm" : facts->model;
    context.first_tool_call_number =
        tool_calls_.fetch_add(static_cast<int64_t>(rule.respond.tool_calls.size())) + 1;
    context.prompt_chars = facts->all_content.size();
    answer.reply = RenderReply(rule.respond, context, facts->stream, facts->include_usage);
    answer.delay_ms = rule.respond.delay_ms;
    entry["rule"] = *admission.rule;
    if (!rule.name.empty()) entry["rule_name"] = rule.name;
  }
  for (const auto& header : limit_headers_) answer.reply.headers.push_back(header);
  entry["status"] = answer.reply.status;
  if (request.ok()) {
    entry["request"] = std::move(*request);
  } else {
    entry["request_text"] = std::string(body);
  }
  log_->Append(std::move(entry));
  return answer;
}

Json ChatHandler::Stats() const {
  return Json{{"requests", requests_.load()},
              {"admitted", admitted_.load()},
              {"rate_limited", rate_limited_.load()}};
}

}  // namespace taskboard::fake_llm
