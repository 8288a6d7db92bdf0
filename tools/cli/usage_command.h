#ifndef TASKBOARD_TOOLS_CLI_USAGE_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_USAGE_COMMAND_H_

// `taskboard usage`: what model calls billed, from the scheduler's usage book
// (GetUsage: per tenant, model and UTC day), as a table per tenant and model
// over a period (usage_table.h), or by day, model or tenant alone. The
// counterpart of budgets: where a tenant's money went, which model was
// throttled (429s), before and after a run paused on its budget. After the
// table, each tenant's period budget against what it billed in the current
// period (usage_budget_table.h).

#include <optional>
#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/time/time.h"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct UsageOptions {
  std::string tenant;  // "" = every tenant the caller may read
  // A UTC day or a duration back from now (usage_since.h); "" = the
  // scheduler's default, 30 days.
  std::string since;
  std::string by;  // "", "day", "model" or "tenant" (usage_table.h)
  bool json = false;
  std::string scheduler;
  int width = 0;  // of standard output; 0 = no limit
  // Tests pin "now" for durations; unset: the clock.
  std::optional<absl::Time> now;
};

// Exit codes: 0 listed (or nothing to list); 1 refused by the scheduler
// (another tenant's usage); 2 a bad --since or --by, or no scheduler.
int RunUsage(const UsageOptions& options, std::ostream& out, std::ostream& err);

void AddUsageCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_USAGE_COMMAND_H_
