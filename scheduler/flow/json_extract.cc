#include "scheduler/flow/json_extract.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/json_depth.h"

namespace taskboard::flow {
namespace {

constexpr absl::string_view kFence = "```";

std::optional<Json> TryParse(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  if (text.empty()) return std::nullopt;
  return TryParseJson(text);
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

// Each failed span restarts the scan one bracket further on, which is
// quadratic in the worst case: 100,000 unclosed `[` would be 5e9 steps on the
// engine thread. The scans of one text share this many bytes per input byte
// (with a floor for short texts); past it no JSON is found. Prose with a few
// bracketed words before its JSON never comes close.
constexpr size_t kScanBytesPerInputByte = 16;
constexpr size_t kMinScanBytes = 1 << 20;

// The end (exclusive) of the bracketed span opening at `start`, or npos when
// it is never closed, closes with the wrong kind of bracket, or `budget`
// (bytes left to scan, decremented) runs out.
size_t MatchingCloseEnd(absl::string_view text, size_t start, size_t& budget) {
  std::string open_brackets;
  bool in_string = false;
  for (size_t i = start; i < text.size(); ++i) {
    if (budget == 0) return absl::string_view::npos;
    --budget;
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
  size_t budget = std::max(kMinScanBytes, kScanBytesPerInputByte * text.size());
  for (size_t start = text.find_first_of("[{"); start != absl::string_view::npos && budget > 0;
       start = text.find_first_of("[{", start + 1)) {
    size_t end = MatchingCloseEnd(text, start, budget);
    if (end == absl::string_view::npos) continue;
    if (std::optional<Json> json = TryParse(text.substr(start, end - start))) return json;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Json> WholeTextJson(absl::string_view text) {
  if (std::optional<Json> json = TryParse(text)) return json;
  text = absl::StripAsciiWhitespace(text);
  std::vector<FencedBlock> blocks = FencedBlocks(text);
  if (blocks.size() != 1 || !absl::StartsWith(text, kFence) || !absl::EndsWith(text, kFence) ||
      text.size() != blocks[0].body.size() + blocks[0].tag.size() + 2 * kFence.size()) {
    return std::nullopt;
  }
  return TryParse(blocks[0].body);
}

std::string NoJsonInOutput(absl::string_view text) {
  absl::Status depth = CheckJsonTextDepth(text, MaxJsonDepth());
  if (!depth.ok()) {
    return absl::StrCat("output holds no JSON within the nesting limit (", depth.message(), ")");
  }
  std::string candidate;
  for (const FencedBlock& block : FencedBlocks(text)) {
    if (block.tag == "json") {
      candidate = "the ```json block";
      text = block.body;
      break;
    }
  }
  const size_t start = text.find_first_of("[{");
  if (start == absl::string_view::npos) return "output holds no JSON";
  size_t budget = std::max(kMinScanBytes, kScanBytesPerInputByte * text.size());
  const size_t end = MatchingCloseEnd(text, start, budget);
  const absl::string_view span =
      end == absl::string_view::npos ? text.substr(start) : text.substr(start, end - start);
  absl::StatusOr<Json> parsed = ParseJson(span);
  if (parsed.ok()) return "output holds no JSON";
  if (candidate.empty())
    candidate = absl::StrCat("the JSON starting with '", text.substr(start, 1), "'");
  return absl::StrCat("output holds no JSON that parses (", candidate,
                      " is not valid: ", parsed.status().message(),
                      "; write strict JSON: double quotes, no trailing commas, no comments)");
}

std::optional<Json> ExtractJson(absl::string_view text) {
  if (std::optional<Json> json = TryParse(text)) return json;
  if (std::optional<Json> json = FromFencedBlocks(text)) return json;
  return FromBalancedSpan(text);
}

}  // namespace taskboard::flow
