#include "scheduler/flow/json_extract.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"

namespace taskboard::flow {
namespace {

constexpr absl::string_view kFence = "```";

std::optional<Json> TryParse(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  if (text.empty()) return std::nullopt;
  absl::StatusOr<Json> parsed = ParseJson(text);
  if (!parsed.ok()) return std::nullopt;
  return *std::move(parsed);
}

// One fenced block: the word right after the opening fence (its language
// tag, possibly empty) and everything up to the closing fence.
struct FencedBlock {
  std::string tag;
  absl::string_view body;
};

// Every complete fenced block in order. A block's body may start on the
// fence line itself (```json {"a":1}```), which models sometimes emit.
std::vector<FencedBlock> FencedBlocks(absl::string_view text) {
  std::vector<FencedBlock> blocks;
  size_t pos = 0;
  while (true) {
    size_t open = text.find(kFence, pos);
    if (open == absl::string_view::npos) break;
    size_t tag_end = open + kFence.size();
    while (tag_end < text.size() &&
           (absl::ascii_isalnum(static_cast<unsigned char>(text[tag_end])) ||
            text[tag_end] == '_' || text[tag_end] == '-' || text[tag_end] == '+')) {
      ++tag_end;
    }
    size_t close = text.find(kFence, tag_end);
    if (close == absl::string_view::npos) break;
    absl::string_view tag = text.substr(open + kFence.size(), tag_end - open - kFence.size());
    blocks.push_back({absl::AsciiStrToLower(tag), text.substr(tag_end, close - tag_end)});
    pos = close + kFence.size();
  }
  return blocks;
}

std::optional<Json> FromFencedBlocks(absl::string_view text) {
  std::vector<FencedBlock> blocks = FencedBlocks(text);
  // ```json is an explicit claim, so it wins over an earlier untagged block.
  for (absl::string_view wanted : {absl::string_view("json"), absl::string_view("")}) {
    for (const FencedBlock& block : blocks) {
      if (block.tag != wanted) continue;
      if (std::optional<Json> json = TryParse(block.body)) return json;
    }
  }
  return std::nullopt;
}

// The end (exclusive) of the bracketed span opening at `start`, or npos when
// it is never closed or closes with the wrong kind of bracket.
size_t MatchingCloseEnd(absl::string_view text, size_t start) {
  std::string open_brackets;
  bool in_string = false;
  for (size_t i = start; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // The escaped character cannot end the string.
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        open_brackets.push_back(c);
        break;
      case ']':
      case '}':
        if (open_brackets.back() != (c == ']' ? '[' : '{')) return absl::string_view::npos;
        open_brackets.pop_back();
        if (open_brackets.empty()) return i + 1;
        break;
      default:
        break;
    }
  }
  return absl::string_view::npos;
}

std::optional<Json> FromBalancedSpan(absl::string_view text) {
  // Prose often brackets words ("[note]", "{item}") before the real JSON, and
  // a prose bracket may enclose it, so a failed span moves the start by one
  // opening bracket rather than past the span.
  for (size_t start = text.find_first_of("[{"); start != absl::string_view::npos;
       start = text.find_first_of("[{", start + 1)) {
    size_t end = MatchingCloseEnd(text, start);
    if (end == absl::string_view::npos) continue;
    if (std::optional<Json> json = TryParse(text.substr(start, end - start))) return json;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Json> ExtractJson(absl::string_view text) {
  if (std::optional<Json> json = TryParse(text)) return json;
  if (std::optional<Json> json = FromFencedBlocks(text)) return json;
  return FromBalancedSpan(text);
}

}  // namespace taskboard::flow
