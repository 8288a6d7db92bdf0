#include "tools/fake-llm/rule_book.h"

#include <string>
#include <utility>

namespace taskboard::fake_llm {
namespace {

bool Contains(const std::string& text, const std::optional<std::string>& needle) {
  return !needle.has_value() || text.find(*needle) != std::string::npos;
}

}  // namespace

bool ConditionsHold(const MatchSpec& match, const RequestFacts& facts) {
  if (match.model.has_value() && *match.model != facts.model) return false;
  if (match.has_tool_results.has_value() && *match.has_tool_results != facts.has_tool_results) {
    return false;
  }
  if (match.turn.has_value() && *match.turn != facts.turn) return false;
  return Contains(facts.all_content, match.contains) &&
         Contains(facts.last_user, match.last_user_contains) &&
         Contains(facts.system, match.system_contains) &&
         Contains(facts.tool_results, match.tool_result_contains);
}

RuleBook::RuleBook(Script script) : script_(std::move(script)), counters_(script_.rules.size()) {}

std::optional<size_t> RuleBook::Select(const RequestFacts& facts) {
  absl::MutexLock lock(&mutex_);
  for (size_t i = 0; i < script_.rules.size(); ++i) {
    const MatchSpec& match = script_.rules[i].match;
    if (!ConditionsHold(match, facts)) continue;
    Counters& counters = counters_[i];
    if (match.times.has_value() && counters.uses >= *match.times) continue;
    ++counters.matches;
    if (counters.matches <= match.after) continue;
    ++counters.uses;
    return i;
  }
  return std::nullopt;
}

}  // namespace taskboard::fake_llm
