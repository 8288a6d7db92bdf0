#ifndef TASKBOARD_SCHEDULER_GOVERNANCE_USAGE_BOOK_H_
#define TASKBOARD_SCHEDULER_GOVERNANCE_USAGE_BOOK_H_

// What each tenant's model calls billed, per UTC day and model: the rows of
// GetUsage (`taskboard usage`) and what tenant budgets are checked against.
// The engine keeps the current month in memory (loaded at start-up) and
// writes each changed row to the store with the batch that billed it.

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "scheduler/governance/budget.h"
#include "scheduler/governance/llm_governor.h"
#include "taskboard/v1/common.pb.h"

namespace taskboard::governance {

struct UsageKey {
  std::string day;  // UTC, YYYY-MM-DD
  std::string tenant;
  std::string model;
  bool operator<(const UsageKey& other) const {
    return std::tie(day, tenant, model) < std::tie(other.day, other.tenant, other.model);
  }
};

struct UsageRow {
  int64_t requests = 0;
  int64_t rate_limited = 0;
  v1::Usage usage;
};

class UsageBook {
 public:
  // A row as stored (start-up).
  void Load(const UsageKey& key, UsageRow row);
  // Adds one call; returns the row as it now stands (to store).
  const UsageRow& Add(const UsageKey& key, const v1::Usage& usage, bool rate_limited);
  // What `tenant` billed in the period (`period`: a day or a month, as
  // PeriodOf names it).
  Spend TenantSpend(const std::string& tenant, const std::string& period) const;
  // Forgets months before `month` ("2026-11"): budgets never look back.
  void ForgetBefore(const std::string& month);

 private:
  std::map<UsageKey, UsageRow> rows_;
};

}  // namespace taskboard::governance

#endif  // TASKBOARD_SCHEDULER_GOVERNANCE_USAGE_BOOK_H_
