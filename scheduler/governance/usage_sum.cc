#include "scheduler/governance/usage_sum.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "common/saturating_add.h"

namespace taskboard::governance {

void AddUsage(v1::Usage& total, const v1::Usage& usage) {
  total.set_input_tokens(SaturatingAdd(total.input_tokens(), usage.input_tokens()));
  total.set_output_tokens(SaturatingAdd(total.output_tokens(), usage.output_tokens()));
  total.set_cache_read_tokens(SaturatingAdd(total.cache_read_tokens(), usage.cache_read_tokens()));
  total.set_cost_usd(total.cost_usd() + usage.cost_usd());
  // turns is an int32: summed wide, held to its range.
  total.set_turns(static_cast<int32_t>(
      std::clamp<int64_t>(int64_t{total.turns()} + usage.turns(), INT32_MIN, INT32_MAX)));
}

v1::Usage AcceptedUsage(const v1::Usage& reported) {
  v1::Usage usage = reported;
  usage.set_input_tokens(std::max<int64_t>(0, reported.input_tokens()));
  usage.set_output_tokens(std::max<int64_t>(0, reported.output_tokens()));
  usage.set_cache_read_tokens(
      std::clamp<int64_t>(reported.cache_read_tokens(), 0, usage.input_tokens()));
  const double cost = reported.cost_usd();
  usage.set_cost_usd(std::isfinite(cost) && cost > 0 ? cost : 0);
  usage.set_turns(std::max(0, reported.turns()));
  return usage;
}

int64_t BudgetTokens(const v1::Usage& usage) {
  return SaturatingAdd(usage.input_tokens(), usage.output_tokens());
}

}  // namespace taskboard::governance
