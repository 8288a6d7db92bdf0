#include "scheduler/flow/gate_verdict.h"

#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "common/json.h"
#include "scheduler/flow/json_extract.h"
#include "scheduler/flow/json_reader.h"

namespace taskboard::flow {
namespace {

constexpr absl::string_view kNoVerdictReason = "no verdict found";
constexpr absl::string_view kVerdictKeyword = "verdict";

bool IsWordChar(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsEmphasis(char c) { return c == '*' || c == '_'; }

// True when some word of `verdict` (a maximal run of [A-Za-z0-9_], as a regex
// \b sees it) is a blocking one: "blocked" and "not" are not, "no" is.
bool VerdictWordBlocks(absl::string_view verdict) {
  static constexpr absl::string_view kBlockingWords[] = {"block",  "fail", "stop",
                                                         "reject", "halt", "no"};
  size_t i = 0;
  while (i < verdict.size()) {
    if (!IsWordChar(verdict[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < verdict.size() && IsWordChar(verdict[end])) ++end;
    absl::string_view word = verdict.substr(i, end - i);
    for (absl::string_view blocking : kBlockingWords) {
      if (absl::EqualsIgnoreCase(word, blocking)) return true;
    }
    i = end;
  }
  return false;
}

std::optional<GateVerdict> FromJson(absl::string_view output) {
  std::optional<Json> json = ExtractJson(output);
  if (!json.has_value() || !json->is_object()) return std::nullopt;
  GateVerdict verdict;
  verdict.found = true;
  // Keys in any case: models write `Verdict` and `Reason` as often as not.
  const Json* reason = FindAnySpelling(*json, "reason");
  if (reason != nullptr && reason->is_string()) verdict.reason = reason->get<std::string>();
  for (const char* key : {"continue", "pass"}) {
    const Json* decision = FindAnySpelling(*json, key);
    if (decision != nullptr && decision->is_boolean()) {
      verdict.pass = decision->get<bool>();
      return verdict;
    }
  }
  const Json* word = FindAnySpelling(*json, "verdict");
  if (word != nullptr && word->is_string()) {
    verdict.pass = !VerdictWordBlocks(word->get<std::string>());
    return verdict;
  }
  return std::nullopt;
}

// Strips what separates a verdict word from its explanation ("BLOCK — why",
// "**PASS**: why", "- why") and trailing emphasis or whitespace.
absl::string_view TrimReason(absl::string_view text) {
  static constexpr absl::string_view kLeadingJunk[] = {
      " ", "\t", "\r", "-", ":", "=", "*", "_", ".", ",", ";", "|", "\u2014", "\u2013"};
  bool stripped = true;
  while (stripped && !text.empty()) {
    stripped = false;
    for (absl::string_view junk : kLeadingJunk) {
      if (absl::ConsumePrefix(&text, junk)) stripped = true;
    }
  }
  while (!text.empty() && (absl::ascii_isspace(static_cast<unsigned char>(text.back())) ||
                           IsEmphasis(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// A `VERDICT: X` found in the text: its decision and where X ends.
struct TextVerdict {
  bool pass;
  size_t word_end;
};

// The VERDICT statement whose keyword starts at `keyword`, if it is one.
std::optional<TextVerdict> VerdictAt(absl::string_view text, size_t keyword) {
  size_t before = keyword;
  while (before > 0 && IsEmphasis(text[before - 1])) --before;
  if (before > 0 && IsWordChar(text[before - 1])) return std::nullopt;

  auto skip_emphasis_and_space = [&text](size_t i) {
    while (i < text.size() &&
           (IsEmphasis(text[i]) || absl::ascii_isspace(static_cast<unsigned char>(text[i])))) {
      ++i;
    }
    return i;
  };
  size_t i = skip_emphasis_and_space(keyword + kVerdictKeyword.size());
  if (i >= text.size() || (text[i] != ':' && text[i] != '=')) return std::nullopt;
  i = skip_emphasis_and_space(i + 1);
  size_t word_end = i;
  while (word_end < text.size() &&
         absl::ascii_isalnum(static_cast<unsigned char>(text[word_end]))) {
    ++word_end;
  }
  absl::string_view word = text.substr(i, word_end - i);
  for (absl::string_view passing : {"pass", "ok"}) {
    if (absl::EqualsIgnoreCase(word, passing)) return TextVerdict{true, word_end};
  }
  for (absl::string_view blocking : {"block", "fail", "stop", "reject", "halt"}) {
    if (absl::EqualsIgnoreCase(word, blocking)) return TextVerdict{false, word_end};
  }
  return std::nullopt;
}

// The rest of the verdict's line, else the next line with something on it.
std::string TextReason(absl::string_view text, size_t word_end) {
  absl::string_view rest = text.substr(word_end);
  size_t line_end = rest.find('\n');
  absl::string_view reason = TrimReason(rest.substr(0, line_end));
  if (!reason.empty() || line_end == absl::string_view::npos) return std::string(reason);
  for (absl::string_view line : absl::StrSplit(rest.substr(line_end + 1), '\n')) {
    reason = TrimReason(line);
    if (!reason.empty()) return std::string(reason);
  }
  return "";
}

std::optional<GateVerdict> FromText(absl::string_view output) {
  // Models restate the format ("reply with VERDICT: PASS or ...") before
  // deciding, so the last statement is the decision.
  const std::string lowered_text = absl::AsciiStrToLower(output);
  absl::string_view lowered = lowered_text;
  std::optional<TextVerdict> last;
  for (size_t pos = lowered.find(kVerdictKeyword); pos != absl::string_view::npos;
       pos = lowered.find(kVerdictKeyword, pos + 1)) {
    if (std::optional<TextVerdict> found = VerdictAt(output, pos)) last = found;
  }
  if (!last.has_value()) return std::nullopt;
  return GateVerdict{last->pass, TextReason(output, last->word_end), true};
}

}  // namespace

GateVerdict ParseGateVerdict(absl::string_view output) {
  if (std::optional<GateVerdict> verdict = FromJson(output)) return *std::move(verdict);
  if (std::optional<GateVerdict> verdict = FromText(output)) return *std::move(verdict);
  return GateVerdict{true, std::string(kNoVerdictReason), false};
}

}  // namespace taskboard::flow
