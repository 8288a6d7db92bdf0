#ifndef TASKBOARD_COMMON_LLM_CALL_USAGE_H_
#define TASKBOARD_COMMON_LLM_CALL_USAGE_H_

// The bounds one model call's reported usage is held to, on both sides: the
// worker applies them where it parses a model server's answer (so the usage
// of its task results is what it counted) and the scheduler where it bills a
// call report (docs/llm-governance.md). One rule, so what a run's tasks show
// and what the run was billed are the same numbers.

#include <cstdint>

namespace taskboard {

// The most tokens one call may claim or report; far beyond any model's
// context window.
inline constexpr int64_t kMaxCallTokens = 100'000'000;
// The most one call may cost when the worker prices it.
inline constexpr double kMaxCallUsd = 1000;

// A token count a model server (or a worker) reported for one call: negative
// counts are 0, absurd ones kMaxCallTokens.
int64_t CallTokens(int64_t reported);
// Of `input_tokens` (already bounded), those served from the prompt cache.
int64_t CallCachedTokens(int64_t reported, int64_t input_tokens);
// What one call cost in USD: negative, NaN or infinite is 0, more than
// kMaxCallUsd is kMaxCallUsd.
double CallCostUsd(double reported);

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_LLM_CALL_USAGE_H_
