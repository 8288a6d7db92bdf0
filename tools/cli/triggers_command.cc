#include "tools/cli/triggers_command.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/triggers/trigger_decoder.h"
#include "tools/cli/flow_error_report.h"
#include "tools/cli/flow_file.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/rpc_call.h"
#include "tools/cli/schedule_text.h"
#include "tools/cli/text_table.h"

namespace taskboard::cli {
namespace {

// Reads and checks the trigger file; its text on success.
int LoadTriggerFile(absl::string_view command, const std::string& path, std::string* text,
                    std::ostream& err) {
  if (!ReadInput(path, text)) {
    err << command << ": cannot read '" << path
        << "': check the path and that the file is readable\n";
    return 2;
  }
  absl::StatusOr<triggers::TriggerDefinition> definition = triggers::LoadTriggerText(*text);
  if (!definition.ok()) {
    PrintFlowErrors(path, "invalid trigger", flow::FlowErrorsFromStatus(definition.status()), err);
    return 1;
  }
  return 0;
}

std::string AuthText(const v1::Trigger& trigger) {
  if (trigger.hmac_secret_set() && trigger.bearer()) return "signature or token";
  return trigger.hmac_secret_set() ? "signature" : "token";
}

}  // namespace

void PrintDeliveries(const google::protobuf::RepeatedPtrField<v1::TriggerDelivery>& deliveries,
                     int width, std::ostream& out) {
  TextTable table({"AT", "OUTCOME", "RUN", "STATUS", "DEDUPE", "REASON"});
  for (const v1::TriggerDelivery& delivery : deliveries) {
    std::string reason = delivery.reason();
    if (delivery.retry_after_seconds() > 0) {
      absl::StrAppend(&reason, " (retry after ", delivery.retry_after_seconds(), " s)");
    }
    table.AddRow(
        {TimeText(delivery.at()), delivery.outcome(),
         delivery.run_id().empty() ? "-" : delivery.run_id(), RunStatusText(delivery.run_status()),
         delivery.dedupe().empty() ? "-" : delivery.dedupe(), reason.empty() ? "-" : reason});
  }
  table.Print(out, width);
}

void PrintTrigger(const v1::Trigger& trigger, int width, std::ostream& out) {
  out << "trigger   " << trigger.name() << "\n";
  out << "event     " << trigger.event() << "  (POST /api/v1/events/" << trigger.event() << ")\n";
  out << "flow      " << trigger.flow()
      << (trigger.flow_version() > 0 ? absl::StrCat(" (version ", trigger.flow_version(), ")")
                                     : std::string(" (latest)"))
      << "\n";
  out << "state     " << (trigger.paused() ? "paused" : "active") << "\n";
  out << "auth      " << AuthText(trigger) << "\n";
  out << "dedupe    " << (trigger.dedupe().empty() ? "none" : trigger.dedupe()) << "\n";
  out << "rate      " << trigger.rate_per_minute() << " a minute, " << trigger.rate_burst()
      << " at once\n";
  out << "counts    " << trigger.accepted() << " accepted, " << trigger.deduped() << " deduped, "
      << trigger.refused() << " refused, " << trigger.filtered() << " filtered\n";
  out << "\nrecent deliveries (newest first):\n";
  if (trigger.recent_deliveries().empty()) {
    out << "  none yet\n";
  } else {
    PrintDeliveries(trigger.recent_deliveries(), width, out);
  }
}

int RunTriggersList(const TriggersOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::ListTriggersResponse response;
  if (int code =
          CallScheduler(client, "taskboard triggers list", &v1::Scheduler::Stub::ListTriggers,
                        v1::ListTriggersRequest(), &response, err);
      code != 0) {
    return code;
  }
  if (options.json) {
    out << ProtoToJsonPretty(response) << "\n";
    return 0;
  }
  if (response.triggers().empty()) {
    err << "no triggers (create one with `taskboard triggers create -f FILE.yaml`)\n";
    return 0;
  }
  TextTable table({"TRIGGER", "EVENT", "FLOW", "STATE", "AUTH", "ACCEPTED", "REFUSED"});
  for (const v1::Trigger& trigger : response.triggers()) {
    table.AddRow({trigger.name(), trigger.event(), trigger.flow(),
                  trigger.paused() ? "paused" : "active", AuthText(trigger),
                  absl::StrCat(trigger.accepted()), absl::StrCat(trigger.refused())});
  }
  table.Print(out, options.width);
  return 0;
}

int RunTriggersCreate(const TriggersOptions& options, std::ostream& out, std::ostream& err) {
  constexpr absl::string_view kCommand = "taskboard triggers create";
  v1::CreateTriggerRequest request;
  if (int code = LoadTriggerFile(kCommand, options.path, request.mutable_source(), err);
      code != 0) {
    return code;
  }
  SchedulerClient client(options.scheduler);
  v1::CreateTriggerResponse response;
  if (int code = CallScheduler(client, kCommand, &v1::Scheduler::Stub::CreateTrigger, request,
                               &response, err);
      code != 0) {
    return code;
  }
  if (options.json) {
    out << ProtoToJsonPretty(response.trigger()) << "\n";
    return 0;
  }
  out << "created trigger " << response.trigger().name() << "; events: POST /api/v1/events/"
      << response.trigger().event() << "\n";
  return 0;
}

int RunTriggersUpdate(const TriggersOptions& options, std::ostream& out, std::ostream& err) {
  constexpr absl::string_view kCommand = "taskboard triggers update";
  v1::UpdateTriggerRequest request;
  if (int code = LoadTriggerFile(kCommand, options.path, request.mutable_source(), err);
      code != 0) {
    return code;
  }
  SchedulerClient client(options.scheduler);
  v1::UpdateTriggerResponse response;
  if (int code = CallScheduler(client, kCommand, &v1::Scheduler::Stub::UpdateTrigger, request,
                               &response, err);
      code != 0) {
    return code;
  }
  out << "updated trigger " << response.trigger().name() << "\n";
  return 0;
}

int RunTriggersDescribe(const TriggersOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::GetTriggerRequest request;
  request.set_name(options.name);
  v1::GetTriggerResponse response;
  if (int code = CallScheduler(client, "taskboard triggers describe",
                               &v1::Scheduler::Stub::GetTrigger, request, &response, err);
      code != 0) {
    return code;
  }
  if (options.json) {
    out << ProtoToJsonPretty(response.trigger()) << "\n";
  } else {
    PrintTrigger(response.trigger(), options.width, out);
  }
  return 0;
}

int RunTriggersDeliveries(const TriggersOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::ListTriggerDeliveriesRequest request;
  request.set_name(options.name);
  v1::ListTriggerDeliveriesResponse response;
  if (int code =
          CallScheduler(client, "taskboard triggers deliveries",
                        &v1::Scheduler::Stub::ListTriggerDeliveries, request, &response, err);
      code != 0) {
    return code;
  }
  if (options.json) {
    out << ProtoToJsonPretty(response) << "\n";
  } else if (response.deliveries().empty()) {
    err << "no deliveries yet for trigger " << options.name << "\n";
  } else {
    PrintDeliveries(response.deliveries(), options.width, out);
  }
  return 0;
}

int RunTriggersDelete(const TriggersOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::DeleteTriggerRequest request;
  request.set_name(options.name);
  v1::DeleteTriggerResponse response;
  if (int code = CallScheduler(client, "taskboard triggers delete",
                               &v1::Scheduler::Stub::DeleteTrigger, request, &response, err);
      code != 0) {
    return code;
  }
  out << "deleted trigger " << options.name << "\n";
  return 0;
}

void AddTriggersCommand(CLI::App& app, CommandSet& commands) {
  CLI::App* group = app.add_subcommand(
      "triggers",
      "List the scheduler's event triggers (or manage them: create, update, describe, "
      "deliveries, delete)");
  group->require_subcommand(0, 1);
  const auto add = [&](const char* name, const char* description, auto run, const auto& declare) {
    auto options = std::make_shared<TriggersOptions>();
    options->width = commands.out_terminal().width;
    CLI::App* command = group->add_subcommand(name, description);
    declare(command, *options);
    AddSchedulerOption(command, &options->scheduler);
    commands.Add(command, [options, run](std::ostream& out, std::ostream& err) {
      return run(*options, out, err);
    });
  };
  const auto named = [](CLI::App* command, TriggersOptions& options) {
    command->add_option("name", options.name, "Trigger name")->required();
  };
  const auto json = [](const char* what) {
    return [what](CLI::App* command, TriggersOptions& options) {
      command->add_flag("--json", options.json, what);
    };
  };
  add("list", "List triggers with their event and counts", RunTriggersList,
      json("Print the ListTriggers response as JSON"));
  add("create", "Check a trigger file and create the trigger", RunTriggersCreate,
      [](CLI::App* command, TriggersOptions& options) {
        command->add_option("-f,--file", options.path, "Trigger file (YAML or JSON), or -")
            ->required();
        command->add_flag("--json", options.json, "Print the created trigger as JSON");
      });
  add("update", "Replace a trigger's definition from its file", RunTriggersUpdate,
      [](CLI::App* command, TriggersOptions& options) {
        command->add_option("-f,--file", options.path, "Trigger file (YAML or JSON), or -")
            ->required();
      });
  add("describe", "Show a trigger: its settings, counts and newest deliveries", RunTriggersDescribe,
      [&](CLI::App* command, TriggersOptions& options) {
        named(command, options);
        command->add_flag("--json", options.json, "Print the trigger as JSON");
      });
  add("deliveries", "Show a trigger's recent deliveries: accepted, deduped, refused or filtered",
      RunTriggersDeliveries, [&](CLI::App* command, TriggersOptions& options) {
        named(command, options);
        command->add_flag("--json", options.json, "Print the deliveries as JSON");
      });
  add("delete", "Delete a trigger (its runs go on)", RunTriggersDelete, named);
  auto listing = std::make_shared<TriggersOptions>();
  listing->width = commands.out_terminal().width;
  group->add_flag("--json", listing->json, "Print the ListTriggers response as JSON");
  AddSchedulerOption(group, &listing->scheduler);
  commands.Add(group, [listing](std::ostream& out, std::ostream& err) {
    return RunTriggersList(*listing, out, err);
  });
}

}  // namespace taskboard::cli
