#include "scheduler/policy/prior_work_builder.h"

#include <string>
#include <utility>
#include <vector>

namespace taskboard::policy {

v1::PriorWork MakePriorWork(absl::string_view policy_name, const RequestLedger& ledger,
                            const TokenBounded& selection) {
  v1::PriorWork prior_work;
  std::vector<v1::Observation> observations = ledger.ReadOrKeepError(selection.seqs);
  prior_work.mutable_observations()->Reserve(static_cast<int>(observations.size()));
  for (v1::Observation& observation : observations) {
    *prior_work.add_observations() = std::move(observation);
  }
  v1::PriorWorkMeta& meta = *prior_work.mutable_meta();
  meta.set_policy(std::string(policy_name));
  meta.set_selected(static_cast<int32_t>(selection.seqs.size()));
  meta.set_available(ledger.size());
  meta.set_tokens_approx(selection.tokens);
  return prior_work;
}

}  // namespace taskboard::policy
