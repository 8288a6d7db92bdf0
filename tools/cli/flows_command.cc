#include "tools/cli/flows_command.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/json.h"
#include "scheduler/flow/flow_encoder.h"
#include "scheduler/flow/flow_names.h"
#include "scheduler/flow/proto_value.h"
#include "tools/cli/display_format.h"
#include "tools/cli/flow_file.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/rpc_call.h"
#include "tools/cli/saved_flow_lookup.h"
#include "tools/cli/text_table.h"

namespace taskboard::cli {
namespace {

// An arg's default as a person reads it: strings bare, the rest as JSON.
std::string DefaultText(const v1::ArgSpec& arg) {
  if (!arg.has_default_value()) return "-";
  const Json value = flow::ProtoValueToJson(arg.default_value());
  return value.is_string() ? value.get<std::string>() : DumpJson(value);
}

}  // namespace

int RunFlowsSave(const FlowsOptions& options, std::ostream& out, std::ostream& err) {
  constexpr absl::string_view kCommand = "taskboard flows save";
  FlowFile file;
  if (int code = LoadFlowFile(kCommand, options.path, &file, err); code != 0) return code;
  SchedulerClient client(options.scheduler);
  v1::SaveFlowRequest request;
  *request.mutable_source() = file.Source();
  v1::SaveFlowResponse response;
  if (int code =
          CallScheduler(client, kCommand, &v1::Scheduler::Stub::SaveFlow, request, &response, err);
      code != 0) {
    return code;
  }
  out << "saved " << response.flow().name() << " version " << response.flow().version() << "\n";
  return 0;
}

void PrintFlowTable(const v1::ListFlowsResponse& flows, absl::Time now, int width,
                    std::ostream& out) {
  TextTable table({"FLOW", "VERSION", "KIND", "SAVED", "DESCRIPTION"});
  for (const v1::SavedFlow& flow : flows.flows()) {
    const absl::Time saved = absl::FromUnixMillis(flow.created_at_unix_ms());
    table.AddRow({flow.name(), absl::StrCat(flow.version()),
                  std::string(flow::FlowKindName(flow.spec())),
                  flow.created_at_unix_ms() > 0 ? FormatAge(now - saved) + " ago" : "-",
                  flow.spec().description()});
  }
  table.Print(out, width);
}

void PrintFlowArgs(const v1::ListFlowsResponse& flows, int width, std::ostream& out) {
  for (const v1::SavedFlow& flow : flows.flows()) {
    if (flow.spec().args().empty()) continue;
    out << "\nargs of " << flow.name() << " (`taskboard run " << flow.name()
        << " key=value ...`):\n";
    TextTable table({"ARG", "REQUIRED", "DEFAULT", "DESCRIPTION"});
    for (const v1::ArgSpec& arg : flow.spec().args()) {
      table.AddRow(
          {arg.name(), arg.required() ? "yes" : "no", DefaultText(arg), arg.description()});
    }
    table.Print(out, width);
  }
}

int RunFlowsList(const FlowsOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::ListFlowsResponse flows;
  if (int code = ListAllFlows(client, "taskboard flows", &flows, err); code != 0) return code;
  if (options.json) {
    out << ProtoToJsonPretty(flows) << "\n";
  } else if (flows.flows().empty()) {
    err << "no saved flows (save one with `taskboard flows save FILE`)\n";
  } else {
    PrintFlowTable(flows, absl::Now(), options.width, out);
    PrintFlowArgs(flows, options.width, out);
  }
  return 0;
}

int RunFlowsShow(const FlowsOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::GetFlowRequest request;
  request.set_name(options.name);
  request.set_version(options.version);
  v1::GetFlowResponse response;
  if (int code = CallScheduler(client, "taskboard flows show", &v1::Scheduler::Stub::GetFlow,
                               request, &response, err);
      code != 0) {
    return code;
  }
  const v1::SavedFlow& flow = response.flow();
  if (options.json) {
    out << ProtoToJsonPretty(flow) << "\n";
    return 0;
  }
  const std::string text =
      flow.source().empty() ? DumpJsonPretty(flow::EncodeFlow(flow.spec())) : flow.source();
  out << text;
  if (text.empty() || text.back() != '\n') out << "\n";
  return 0;
}

int RunFlowsDelete(const FlowsOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::DeleteFlowRequest request;
  request.set_name(options.name);
  v1::DeleteFlowResponse response;
  if (int code = CallScheduler(client, "taskboard flows delete", &v1::Scheduler::Stub::DeleteFlow,
                               request, &response, err);
      code != 0) {
    return code;
  }
  out << "deleted " << options.name << " (" << response.deleted_versions()
      << (response.deleted_versions() == 1 ? " version" : " versions") << ")\n";
  return 0;
}

void AddFlowsCommand(CLI::App& app, CommandSet& commands) {
  CLI::App* flows = app.add_subcommand(
      "flows",
      "List the scheduler's saved flows with their args (or manage them: save, list, "
      "show, delete)");
  flows->require_subcommand(0, 1);
  // One options struct per subcommand, so a parse fills only the chosen one.
  const auto add = [&](const char* name, const char* description, auto run, const auto& declare) {
    auto options = std::make_shared<FlowsOptions>();
    options->width = commands.out_terminal().width;
    CLI::App* command = flows->add_subcommand(name, description);
    declare(command, *options);
    AddSchedulerOption(command, &options->scheduler);
    commands.Add(command, [options, run](std::ostream& out, std::ostream& err) {
      return run(*options, out, err);
    });
  };
  add("save", "Check a flow file and save it as the next version of its name", RunFlowsSave,
      [](CLI::App* command, FlowsOptions& options) {
        command->add_option("file", options.path, "Flow file (JSON or YAML), or - for stdin")
            ->required();
      });
  add("list", "List saved flows (latest version of each)", RunFlowsList,
      [](CLI::App* command, FlowsOptions& options) {
        command->add_flag("--json", options.json, "Print the ListFlows response as JSON");
      });
  add("show", "Print a saved flow's definition", RunFlowsShow,
      [](CLI::App* command, FlowsOptions& options) {
        command->add_option("name", options.name, "Flow name")->required();
        command->add_option("--version", options.version, "Version (default: the latest)")
            ->check(CLI::NonNegativeNumber);
        command->add_flag("--json", options.json, "Print the saved flow as JSON");
      });
  add("delete", "Delete every version of a saved flow", RunFlowsDelete,
      [](CLI::App* command, FlowsOptions& options) {
        command->add_option("name", options.name, "Flow name")->required();
      });
  // Bare `flows` lists, as pi-taskflow's `/tf list`; registered after the
  // subcommands, so a parsed subcommand's action wins.
  auto listing = std::make_shared<FlowsOptions>();
  listing->width = commands.out_terminal().width;
  flows->add_flag("--json", listing->json, "Print the ListFlows response as JSON");
  AddSchedulerOption(flows, &listing->scheduler);
  commands.Add(flows, [listing](std::ostream& out, std::ostream& err) {
    return RunFlowsList(*listing, out, err);
  });
}

}  // namespace taskboard::cli
