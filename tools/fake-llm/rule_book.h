#ifndef TASKBOARD_TOOLS_FAKE_LLM_RULE_BOOK_H_
#define TASKBOARD_TOOLS_FAKE_LLM_RULE_BOOK_H_

// Chooses the rule that answers a request: the first whose conditions hold
// and whose `times` / `after` counters let it answer. Thread-safe: the HTTP
// server calls Select from several threads.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "tools/fake-llm/request_facts.h"
#include "tools/fake-llm/script.h"

namespace taskboard::fake_llm {

// Whether every condition in `match` holds for `facts` (ignores times/after).
bool ConditionsHold(const MatchSpec& match, const RequestFacts& facts);

class RuleBook {
 public:
  explicit RuleBook(Script script);

  // The index of the answering rule, or nullopt when none does. A rule whose
  // conditions hold counts the match even when `after` makes it fall through,
  // and counts a use when it answers.
  std::optional<size_t> Select(const RequestFacts& facts);

  const Rule& rule(size_t index) const { return script_.rules[index]; }

 private:
  struct Counters {
    int64_t matches = 0;
    int64_t uses = 0;
  };

  const Script script_;
  absl::Mutex mutex_;
  std::vector<Counters> counters_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace taskboard::fake_llm

#endif  // TASKBOARD_TOOLS_FAKE_LLM_RULE_BOOK_H_
