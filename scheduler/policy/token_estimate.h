#ifndef TASKBOARD_SCHEDULER_POLICY_TOKEN_ESTIMATE_H_
#define TASKBOARD_SCHEDULER_POLICY_TOKEN_ESTIMATE_H_

// The approximate token cost of observations and the `max_tokens` bound of
// the flow policies (docs/semantics.md#token-bound). The estimate is the seed's
// 4-characters-per-token heuristic, not a tokenizer: it is only used to keep
// prior work within a budget and to report `tokens_approx`.

#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::policy {

class RequestLedger;

// ceil((len(args_json) + len(result)) / 4), where result is result_json, or
// for a failed call the error measured as a JSON string (quoted and escaped),
// so both sides are lengths of JSON text.
int64_t EstimateTokens(const v1::Observation& observation);

// ceil(len(text) / 4): a narrative or other plain text.
int64_t EstimateTextTokens(absl::string_view text);

struct TokenBounded {
  // Ascending seqs.
  std::vector<int64_t> seqs;
  // Sum of their estimates.
  int64_t tokens = 0;
};

// Keeps the newest observations of `seqs` (ascending ledger seqs) that fit
// in `max_tokens`: walks newest to oldest, keeping each while the running
// total fits, and stops at the first that does not (older, smaller ones are
// not considered, so the selection stays a contiguous recent slice of the
// candidates). `max_tokens` <= 0 means unbounded. Touches only the kept
// candidates plus one.
TokenBounded BoundByTokens(const RequestLedger& ledger, std::vector<int64_t> seqs,
                           int64_t max_tokens);

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_TOKEN_ESTIMATE_H_
