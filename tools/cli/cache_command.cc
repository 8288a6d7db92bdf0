#include "tools/cli/cache_command.h"

#include <memory>

#include "tools/cli/cache_table.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/rpc_call.h"

namespace taskboard::cli {
namespace {

constexpr absl::string_view kCacheCommand = "taskboard cache";

}  // namespace

int RunCache(const CacheOptions& options, std::ostream& out, std::ostream& err) {
  v1::GetCacheStatsRequest request;
  request.set_tenant(options.tenant);
  SchedulerClient client(options.scheduler);
  v1::GetCacheStatsResponse response;
  if (int code = CallScheduler(client, kCacheCommand, &v1::Scheduler::Stub::GetCacheStats, request,
                               &response, err);
      code != 0) {
    return code;
  }
  if (options.json) {
    out << ProtoToJsonPretty(response) << "\n";
  } else if (response.rows().empty()) {
    err << "no tool cache entries or lookups"
        << (options.tenant.empty() ? "" : " for tenant " + options.tenant)
        << " since the scheduler started\n";
  } else {
    PrintCacheTable(response, options.width, out);
  }
  return 0;
}

void AddCacheCommand(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<CacheOptions>();
  options->width = commands.out_terminal().width;
  CLI::App* command = app.add_subcommand(
      "cache",
      "The shared tool cache by tenant, scope and tool: entries held, hits, misses, coalesced");
  command->add_option("--tenant", options->tenant,
                      "Only this tenant (default: every tenant your token may read)");
  command->add_flag("--json", options->json, "Print the GetCacheStats response as JSON");
  AddSchedulerOption(command, &options->scheduler);
  commands.Add(command, [options](std::ostream& out, std::ostream& err) {
    return RunCache(*options, out, err);
  });
}

}  // namespace taskboard::cli
