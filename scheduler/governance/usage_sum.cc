#include "scheduler/governance/usage_sum.h"

namespace taskboard::governance {

void AddUsage(v1::Usage& total, const v1::Usage& usage) {
  total.set_input_tokens(total.input_tokens() + usage.input_tokens());
  total.set_output_tokens(total.output_tokens() + usage.output_tokens());
  total.set_cache_read_tokens(total.cache_read_tokens() + usage.cache_read_tokens());
  total.set_cost_usd(total.cost_usd() + usage.cost_usd());
  total.set_turns(total.turns() + usage.turns());
}

}  // namespace taskboard::governance
