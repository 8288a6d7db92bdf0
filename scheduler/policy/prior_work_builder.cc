#include "scheduler/policy/prior_work_builder.h"

#include <string>

namespace taskboard::policy {

v1::PriorWork MakePriorWork(absl::string_view policy_name, const RequestLedger& ledger,
                            const TokenBounded& selection) {
  v1::PriorWork prior_work;
  prior_work.mutable_observations()->Reserve(static_cast<int>(selection.seqs.size()));
  for (int64_t seq : selection.seqs) *prior_work.add_observations() = ledger.At(seq);
  v1::PriorWorkMeta& meta = *prior_work.mutable_meta();
  meta.set_policy(std::string(policy_name));
  meta.set_selected(static_cast<int32_t>(selection.seqs.size()));
  meta.set_available(ledger.size());
  meta.set_tokens_approx(selection.tokens);
  return prior_work;
}

}  // namespace taskboard::policy
