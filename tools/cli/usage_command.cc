#include "tools/cli/usage_command.h"

#include <memory>

#include "absl/time/clock.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/rpc_call.h"
#include "tools/cli/usage_budget_table.h"
#include "tools/cli/usage_since.h"
#include "tools/cli/usage_table.h"

namespace taskboard::cli {
namespace {

constexpr absl::string_view kUsageCommand = "taskboard usage";

// The period the scheduler counts when no `since` is sent
// (GetUsageRequest.since); only used to say which period was empty.
constexpr absl::Duration kDefaultPeriod = absl::Hours(24 * 30);

}  // namespace

int RunUsage(const UsageOptions& options, std::ostream& out, std::ostream& err) {
  const std::optional<UsageGrouping> grouping = UsageGroupingFromName(options.by);
  if (!grouping) {
    err << kUsageCommand << ": --by '" << options.by
        << "' is not a grouping: day, model or tenant\n";
    return 2;
  }
  const absl::Time now = options.now.value_or(absl::Now());
  v1::GetUsageRequest request;
  request.set_tenant(options.tenant);
  absl::Time since = now - kDefaultPeriod;
  if (!options.since.empty()) {
    const absl::StatusOr<absl::Time> parsed = ParseUsageSince(options.since, now);
    if (!parsed.ok()) {
      err << kUsageCommand << ": " << parsed.status().message() << "\n";
      return 2;
    }
    since = *parsed;
    request.mutable_since()->set_seconds(absl::ToUnixSeconds(since));
  }
  SchedulerClient client(options.scheduler);
  v1::GetUsageResponse response;
  if (int code = CallScheduler(client, kUsageCommand, &v1::Scheduler::Stub::GetUsage, request,
                               &response, err);
      code != 0) {
    return code;
  }
  if (options.json) {
    out << ProtoToJsonPretty(response) << "\n";
    return 0;
  }
  if (response.rows().empty()) {
    err << "no LLM usage" << (options.tenant.empty() ? "" : " for tenant " + options.tenant)
        << " since " << UtcDayOf(since) << "\n";
  } else {
    PrintUsageTable(response, *grouping, options.width, out);
    if (!response.budgets().empty()) out << "\n";
  }
  // The budgets count their current period, whatever --since says.
  PrintBudgetTable(response, options.width, out);
  return 0;
}

void AddUsageCommand(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<UsageOptions>();
  options->width = commands.out_terminal().width;
  CLI::App* command = app.add_subcommand(
      "usage", "LLM usage by tenant and model: requests, tokens, cost and 429s over a period");
  command->add_option("--tenant", options->tenant,
                      "Only this tenant (default: every tenant your token may read)");
  command->add_option("--since", options->since,
                      "From this UTC day (2026-10-26) or this long ago (7d, 24h); default 30d");
  command->add_option("--by", options->by,
                      "One line per day (tenant, model and day), model or tenant instead of per "
                      "tenant and model");
  command->add_flag("--json", options->json,
                    "Print the GetUsage response (one row per day) as JSON");
  AddSchedulerOption(command, &options->scheduler);
  commands.Add(command, [options](std::ostream& out, std::ostream& err) {
    return RunUsage(*options, out, err);
  });
}

}  // namespace taskboard::cli
