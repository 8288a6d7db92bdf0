#ifndef TASKBOARD_TOOLS_CLI_CACHE_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_CACHE_COMMAND_H_

// `taskboard cache`: what the shared tool cache holds and how its lookups
// went (GetCacheStats: per tenant, scope and tool), as a table
// (cache_table.h) or the response as JSON. Answers "is the cache worth it
// for this tool?" and "what fills it?" (docs/tool-cache.md).

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct CacheOptions {
  std::string tenant;  // "" = every tenant the caller may read
  bool json = false;
  std::string scheduler;
  int width = 0;  // of standard output; 0 = no limit
};

// Exit codes: 0 listed (or nothing to list); 1 refused by the scheduler
// (another tenant); 2 no scheduler.
int RunCache(const CacheOptions& options, std::ostream& out, std::ostream& err);

void AddCacheCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_CACHE_COMMAND_H_
