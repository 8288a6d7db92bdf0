#include "scheduler/policy/token_estimate.h"

#include <algorithm>
#include <utility>

#include "common/json.h"
#include "scheduler/policy/request_ledger.h"

namespace taskboard::policy {
namespace {

int64_t CeilQuarter(int64_t chars) { return (chars + 3) / 4; }

}  // namespace

int64_t EstimateTokens(const v1::Observation& observation) {
  const int64_t result_chars =
      observation.error().empty()
          ? static_cast<int64_t>(observation.result_json().size())
          : static_cast<int64_t>(DumpJson(Json(observation.error())).size());
  return CeilQuarter(static_cast<int64_t>(observation.args_json().size()) + result_chars);
}

int64_t EstimateTextTokens(absl::string_view text) {
  return CeilQuarter(static_cast<int64_t>(text.size()));
}

TokenBounded BoundByTokens(const RequestLedger& ledger, std::vector<int64_t> seqs,
                           int64_t max_tokens) {
  TokenBounded bounded;
  if (max_tokens <= 0) {
    for (int64_t seq : seqs) bounded.tokens += ledger.TokensAt(seq);
    bounded.seqs = std::move(seqs);
    return bounded;
  }
  size_t first_kept = seqs.size();
  while (first_kept > 0) {
    const int64_t tokens = ledger.TokensAt(seqs[first_kept - 1]);
    if (bounded.tokens + tokens > max_tokens) break;
    bounded.tokens += tokens;
    --first_kept;
  }
  seqs.erase(seqs.begin(), seqs.begin() + static_cast<std::ptrdiff_t>(first_kept));
  bounded.seqs = std::move(seqs);
  return bounded;
}

}  // namespace taskboard::policy
