#include "scheduler/governance/usage_book.h"

#include <utility>

#include "absl/strings/match.h"
#include "common/saturating_add.h"
#include "scheduler/governance/usage_sum.h"

namespace taskboard::governance {

void UsageBook::Load(const UsageKey& key, UsageRow row) { rows_[key] = std::move(row); }

const UsageRow& UsageBook::Add(const UsageKey& key, const v1::Usage& usage, bool rate_limited) {
  UsageRow& row = rows_[key];
  row.requests++;
  if (rate_limited) row.rate_limited++;
  AddUsage(row.usage, usage);
  row.usage.set_model(key.model);
  return row;
}

Spend UsageBook::TenantSpend(const std::string& tenant, const std::string& period) const {
  Spend spend;
  // Days sort by their text, and a period is a prefix of its days.
  for (auto it = rows_.lower_bound(UsageKey{period, "", ""});
       it != rows_.end() && absl::StartsWith(it->first.day, period); ++it) {
    if (it->first.tenant != tenant) continue;
    spend.tokens = SaturatingAdd(spend.tokens, BudgetTokens(it->second.usage));
    spend.usd += it->second.usage.cost_usd();
  }
  return spend;
}

void UsageBook::ForgetBefore(const std::string& month) {
  rows_.erase(rows_.begin(), rows_.lower_bound(UsageKey{month, "", ""}));
}

}  // namespace taskboard::governance
