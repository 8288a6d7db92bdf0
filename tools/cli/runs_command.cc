#include "tools/cli/runs_command.h"

#include <memory>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "tools/cli/display_format.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/rpc_call.h"
#include "tools/cli/run_render.h"
#include "tools/cli/run_states.h"
#include "tools/cli/text_table.h"

namespace taskboard::cli {
namespace {

constexpr absl::string_view kRunsCommand = "taskboard runs";

}  // namespace

void PrintRunTable(const v1::ListRunsResponse& runs, absl::Time now, int width, std::ostream& out) {
  // An admin's list can mix tenants: then say whose each run is.
  absl::flat_hash_set<std::string> tenants;
  for (const v1::Run& run : runs.runs()) tenants.insert(run.tenant());
  const bool by_tenant = tenants.size() > 1;
  std::vector<std::string> header = {"RUN", "FLOW", "KIND", "STATUS", "DONE", "COST", "AGE"};
  if (by_tenant) header.insert(header.begin() + 1, "TENANT");
  TextTable table(header);
  for (const v1::Run& run : runs.runs()) {
    const std::optional<absl::Time> created = TimeFromProto(run.created_at());
    std::vector<std::string> row = {
        run.run_id(),
        run.flow_name(),
        RunKindName(run.kind()),
        RunStatusName(run.status()),
        RunProgress(run),
        run.usage().cost_usd() > 0 ? FormatCost(run.usage().cost_usd()) : "-",
        created ? FormatAge(now - *created) : "-"};
    if (by_tenant) row.insert(row.begin() + 1, run.tenant().empty() ? "-" : run.tenant());
    table.AddRow(row);
  }
  table.Print(out, width);
}

int RunListRuns(const RunsOptions& options, std::ostream& out, std::ostream& err) {
  v1::ListRunsRequest request;
  for (const std::string& names : options.statuses) {
    for (absl::string_view name : absl::StrSplit(names, ',', absl::SkipWhitespace())) {
      const std::optional<v1::RunStatus> status =
          RunStatusFromName(absl::StripAsciiWhitespace(name));
      if (!status) {
        err << kRunsCommand << ": unknown status '" << name
            << "' (pending, running, completed, failed, blocked, cancelled, paused, timed_out)\n";
        return 2;
      }
      request.add_statuses(*status);
    }
  }
  request.set_flow_name(options.flow_name);
  request.set_parent_run_id(options.parent_run_id);
  request.set_tenant(options.tenant);
  request.set_page_size(options.limit);
  SchedulerClient client(options.scheduler);
  v1::ListRunsResponse response;
  if (int code = CallScheduler(client, kRunsCommand, &v1::Scheduler::Stub::ListRuns, request,
                               &response, err);
      code != 0) {
    return code;
  }
  if (options.json) {
    out << ProtoToJsonPretty(response) << "\n";
  } else if (response.runs().empty()) {
    err << "no runs\n";
  } else {
    PrintRunTable(response, absl::Now(), options.width, out);
  }
  return 0;
}

void AddRunsCommand(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<RunsOptions>();
  options->width = commands.out_terminal().width;
  CLI::App* command = app.add_subcommand("runs", "List recent runs, newest first");
  command
      ->add_option("--status", options->statuses,
                   "Only runs in these statuses (repeatable or comma-separated)")
      ->allow_extra_args(false);
  command->add_option("--flow", options->flow_name, "Only runs of this flow");
  command->add_option("--parent", options->parent_run_id,
                      "Only the child runs of this run (a nested pattern's steps)");
  command->add_option("--tenant", options->tenant,
                      "Only this tenant's runs (admin tokens; a client token sees its own)");
  command->add_option("--limit", options->limit, "How many runs at most")
      ->check(CLI::Range(1, 500))
      ->capture_default_str();
  command->add_flag("--json", options->json, "Print the ListRuns response as JSON");
  AddSchedulerOption(command, &options->scheduler);
  commands.Add(command, [options](std::ostream& out, std::ostream& err) {
    return RunListRuns(*options, out, err);
  });
}

}  // namespace taskboard::cli
