#include "worker/agents/chat_stream.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/json.h"
#include "worker/agents/chat_json.h"

namespace taskboard::worker {

void ChatStreamAssembler::Feed(absl::string_view bytes) {
  if (!status_.ok() || done_) return;  // the rest is ignored; keep none of it
  // pending_ holds no newline, so only the new bytes are searched: a long
  // line arriving in small pieces stays linear, not quadratic.
  const size_t searched = pending_.size();
  pending_.append(bytes.data(), bytes.size());
  size_t start = 0;
  for (size_t newline;
       (newline = pending_.find('\n', std::max(start, searched))) != std::string::npos;
       start = newline + 1) {
    Line(absl::string_view(pending_).substr(start, newline - start));
  }
  pending_.erase(0, start);
}

void ChatStreamAssembler::Line(absl::string_view line) {
  if (!status_.ok() || done_) return;
  line = absl::StripTrailingAsciiWhitespace(line);  // "\r\n" line ends
  // Comments (": keep-alive"), event names and blank separators carry no
  // data; each chunk fits on one data line in this protocol.
  if (!absl::ConsumePrefix(&line, "data:")) return;
  line = absl::StripLeadingAsciiWhitespace(line);
  if (line == "[DONE]") {
    done_ = true;
    return;
  }
  Chunk(line);
}

void ChatStreamAssembler::Chunk(absl::string_view data) {
  absl::StatusOr<Json> chunk = ParseJson(data);
  if (!chunk.ok() || !chunk->is_object()) {
    status_ = absl::InvalidArgumentError(
        absl::StrCat("a streamed chunk is not a JSON object: ", Snippet(data)));
    return;
  }
  if (auto error = chunk->find("error"); error != chunk->end()) {
    status_ = absl::InvalidArgumentError(
        absl::StrCat("the server reported an error mid-stream: ", Snippet(DumpJson(*error))));
    return;
  }
  ReadUsageAndModel(*chunk, &response_);
  auto choices = chunk->find("choices");
  if (choices == chunk->end() || !choices->is_array() || choices->empty()) return;
  const Json& choice = (*choices)[0];
  if (!choice.is_object()) return;
  saw_choice_ = true;
  if (std::string reason = StringField(choice, "finish_reason"); !reason.empty()) {
    response_.finish_reason = reason;
  }
  auto delta = choice.find("delta");
  if (delta == choice.end() || !delta->is_object()) return;
  if (std::string content = StringField(*delta, "content"); !content.empty()) {
    response_.message.mutable_content()->append(content);
    if (on_delta_) on_delta_(content);
  }
  auto calls = delta->find("tool_calls");
  if (calls == delta->end() || !calls->is_array()) return;
  for (const Json& call : *calls) {
    if (!call.is_object()) continue;
    auto index = call.find("index");
    const int i = index != call.end() && index->is_number_integer() ? index->get<int>() : 0;
    v1::ChatToolCall& assembled = calls_[i];
    if (std::string id = StringField(call, "id"); !id.empty()) assembled.set_id(id);
    auto function = call.find("function");
    if (function == call.end() || !function->is_object()) continue;
    if (std::string name = StringField(*function, "name"); !name.empty()) assembled.set_name(name);
    assembled.mutable_arguments_json()->append(StringField(*function, "arguments"));
  }
}

absl::StatusOr<ChatResponse> ChatStreamAssembler::Finish() {
  if (!pending_.empty()) {
    // A last line without its newline.
    std::string last;
    last.swap(pending_);
    Line(last);
  }
  if (!status_.ok()) return status_;
  if (!done_ && !saw_choice_) {
    return absl::InvalidArgumentError("the stream ended before any chunk with `choices`");
  }
  ChatResponse response = response_;
  response.message.set_role("assistant");
  for (auto& [index, call] : calls_) *response.message.add_tool_calls() = call;
  return response;
}

}  // namespace taskboard::worker
