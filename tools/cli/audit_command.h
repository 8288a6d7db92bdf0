#ifndef TASKBOARD_TOOLS_CLI_AUDIT_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_AUDIT_COMMAND_H_

// `taskboard audit`: the audit trail (docs/audit.md), newest first, from
// ListAuditEvents: who submitted, cancelled, resumed, saved, deleted,
// approved or drained what, from where, and how it went, plus the calls the
// scheduler refused. Filters by tenant, actor, method, target and time;
// follows page tokens up to --limit records.

#include <optional>
#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/time/time.h"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct AuditOptions {
  std::string tenant;  // "" = every tenant the caller may read
  std::string actor;
  std::string method;
  std::string target;
  // A UTC day or a duration back from now (usage_since.h); "" = no bound.
  std::string since;
  std::string until;
  int limit = 100;
  bool json = false;
  std::string scheduler;
  int width = 0;  // of standard output; 0 = no limit
  // Tests pin "now" for durations; unset: the clock.
  std::optional<absl::Time> now;
};

// Exit codes: 0 listed (or nothing to list); 1 refused by the scheduler
// (another tenant's records); 2 a bad --since, --until or --limit, or no
// scheduler.
int RunAudit(const AuditOptions& options, std::ostream& out, std::ostream& err);

void AddAuditCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_AUDIT_COMMAND_H_
