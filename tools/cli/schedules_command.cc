#include "tools/cli/schedules_command.h"

#include <cctype>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/schedules/schedule_decoder.h"
#include "tools/cli/flow_error_report.h"
#include "tools/cli/flow_file.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/rpc_call.h"
#include "tools/cli/schedule_text.h"
#include "tools/cli/text_table.h"

namespace taskboard::cli {
namespace {

// Reads and checks the schedule file; its text on success.
int LoadScheduleFile(absl::string_view command, const std::string& path, std::string* text,
                     std::ostream& err) {
  if (!ReadInput(path, text)) {
    err << command << ": cannot read '" << path
        << "': check the path and that the file is readable\n";
    return 2;
  }
  absl::StatusOr<schedules::ScheduleDefinition> definition = schedules::LoadScheduleText(*text);
  if (!definition.ok()) {
    PrintFlowErrors(path, "invalid schedule", flow::FlowErrorsFromStatus(definition.status()), err);
    return 1;
  }
  return 0;
}

bool ParseTime(const std::string& text, const char* flag, absl::Time* time, std::ostream& err) {
  std::string error;
  if (absl::ParseTime(absl::RFC3339_full, text, time, &error)) return true;
  err << "taskboard schedules backfill: " << flag << " '" << text
      << "' is not an RFC 3339 time (e.g. 2026-12-01T00:00:00Z): " << error << "\n";
  return false;
}

google::protobuf::Timestamp Stamp(absl::Time time) {
  google::protobuf::Timestamp stamp;
  const absl::Duration since = time - absl::UnixEpoch();
  stamp.set_seconds(absl::ToInt64Seconds(since));
  stamp.set_nanos(
      static_cast<int32_t>(absl::ToInt64Nanoseconds(since - absl::Seconds(stamp.seconds()))));
  return stamp;
}

void PrintActions(const google::protobuf::RepeatedPtrField<v1::ScheduleAction>& actions, int width,
                  std::ostream& out) {
  TextTable table({"FIRE TIME", "ACTION", "RUN", "STATUS", "NOTE"});
  for (const v1::ScheduleAction& action : actions) {
    std::string note = action.manual();
    if (!action.error().empty())
      note = absl::StrCat(note.empty() ? "" : note + ": ", action.error());
    table.AddRow({TimeText(action.fire_time()), action.action(),
                  action.run_id().empty() ? "-" : action.run_id(),
                  RunStatusText(action.run_status()), note.empty() ? "-" : note});
  }
  table.Print(out, width);
}

}  // namespace

void PrintSchedule(const v1::Schedule& schedule, int width, std::ostream& out) {
  out << "schedule  " << schedule.name() << "\n";
  out << "flow      " << schedule.flow()
      << (schedule.flow_version() > 0 ? absl::StrCat(" (version ", schedule.flow_version(), ")")
                                      : std::string(" (latest)"))
      << "\n";
  out << "state     " << (schedule.paused() ? "paused" : "active")
      << (schedule.note().empty() ? "" : absl::StrCat(": ", schedule.note())) << "\n";
  out << "overlap   " << schedule.overlap() << ", catch-up window "
      << absl::FormatDuration(absl::Seconds(schedule.catchup_window_seconds())) << "\n";
  out << "counts    " << schedule.fires() << " started, " << schedule.missed() << " missed, "
      << schedule.skipped() << " skipped, " << schedule.buffered_fires() << " waiting\n";
  if (!schedule.running_run_ids().empty()) {
    out << "running   " << absl::StrJoin(schedule.running_run_ids(), ", ") << "\n";
  }
  out << "\nnext fire times:\n";
  if (schedule.next_fire_times().empty()) out << "  none (the spec has ended)\n";
  for (const google::protobuf::Timestamp& time : schedule.next_fire_times()) {
    out << "  " << TimeText(time) << "\n";
  }
  out << "\nrecent actions (newest first):\n";
  if (schedule.recent_actions().empty()) {
    out << "  none yet\n";
  } else {
    PrintActions(schedule.recent_actions(), width, out);
  }
}

int RunSchedulesList(const SchedulesOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::ListSchedulesResponse response;
  if (int code =
          CallScheduler(client, "taskboard schedules list", &v1::Scheduler::Stub::ListSchedules,
                        v1::ListSchedulesRequest(), &response, err);
      code != 0) {
    return code;
  }
  if (options.json) {
    out << ProtoToJsonPretty(response) << "\n";
    return 0;
  }
  if (response.schedules().empty()) {
    err << "no schedules (create one with `taskboard schedules create -f FILE.yaml`)\n";
    return 0;
  }
  TextTable table({"SCHEDULE", "FLOW", "STATE", "NEXT FIRE", "OVERLAP", "STARTED", "MISSED"});
  for (const v1::Schedule& schedule : response.schedules()) {
    table.AddRow({schedule.name(), schedule.flow(), schedule.paused() ? "paused" : "active",
                  schedule.next_fire_times().empty() ? "-" : TimeText(schedule.next_fire_times(0)),
                  schedule.overlap(), absl::StrCat(schedule.fires()),
                  absl::StrCat(schedule.missed())});
  }
  table.Print(out, options.width);
  return 0;
}

int RunSchedulesCreate(const SchedulesOptions& options, std::ostream& out, std::ostream& err) {
  constexpr absl::string_view kCommand = "taskboard schedules create";
  v1::CreateScheduleRequest request;
  if (int code = LoadScheduleFile(kCommand, options.path, request.mutable_source(), err);
      code != 0) {
    return code;
  }
  SchedulerClient client(options.scheduler);
  v1::CreateScheduleResponse response;
  if (int code = CallScheduler(client, kCommand, &v1::Scheduler::Stub::CreateSchedule, request,
                               &response, err);
      code != 0) {
    return code;
  }
  if (options.json) {
    out << ProtoToJsonPretty(response.schedule()) << "\n";
    return 0;
  }
  out << "created schedule " << response.schedule().name();
  if (!response.schedule().next_fire_times().empty()) {
    out << "; next fire " << TimeText(response.schedule().next_fire_times(0));
  }
  out << "\n";
  return 0;
}

int RunSchedulesUpdate(const SchedulesOptions& options, std::ostream& out, std::ostream& err) {
  constexpr absl::string_view kCommand = "taskboard schedules update";
  v1::UpdateScheduleRequest request;
  if (int code = LoadScheduleFile(kCommand, options.path, request.mutable_source(), err);
      code != 0) {
    return code;
  }
  SchedulerClient client(options.scheduler);
  v1::UpdateScheduleResponse response;
  if (int code = CallScheduler(client, kCommand, &v1::Scheduler::Stub::UpdateSchedule, request,
                               &response, err);
      code != 0) {
    return code;
  }
  out << "updated schedule " << response.schedule().name() << "\n";
  return 0;
}

int RunSchedulesDescribe(const SchedulesOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::DescribeScheduleRequest request;
  request.set_name(options.name);
  v1::DescribeScheduleResponse response;
  if (int code = CallScheduler(client, "taskboard schedules describe",
                               &v1::Scheduler::Stub::DescribeSchedule, request, &response, err);
      code != 0) {
    return code;
  }
  if (options.json) {
    out << ProtoToJsonPretty(response.schedule()) << "\n";
  } else {
    PrintSchedule(response.schedule(), options.width, out);
  }
  return 0;
}

int RunSchedulesPause(const SchedulesOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::PauseScheduleRequest request;
  request.set_name(options.name);
  request.set_note(options.note);
  v1::PauseScheduleResponse response;
  if (int code = CallScheduler(client, "taskboard schedules pause",
                               &v1::Scheduler::Stub::PauseSchedule, request, &response, err);
      code != 0) {
    return code;
  }
  out << "paused schedule " << options.name << "\n";
  return 0;
}

int RunSchedulesUnpause(const SchedulesOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::UnpauseScheduleRequest request;
  request.set_name(options.name);
  request.set_note(options.note);
  v1::UnpauseScheduleResponse response;
  if (int code = CallScheduler(client, "taskboard schedules unpause",
                               &v1::Scheduler::Stub::UnpauseSchedule, request, &response, err);
      code != 0) {
    return code;
  }
  out << "unpaused schedule " << options.name << "\n";
  return 0;
}

int RunSchedulesTrigger(const SchedulesOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::TriggerScheduleRequest request;
  request.set_name(options.name);
  request.set_overlap(options.overlap);
  v1::TriggerScheduleResponse response;
  if (int code = CallScheduler(client, "taskboard schedules trigger",
                               &v1::Scheduler::Stub::TriggerSchedule, request, &response, err);
      code != 0) {
    return code;
  }
  const v1::ScheduleAction& action = response.action();
  if (!action.run_id().empty()) {
    out << "started run " << action.run_id() << "\n";
  } else if (!action.error().empty()) {
    err << "taskboard schedules trigger: the run could not start: " << action.error() << "\n";
    return 1;
  } else {
    out << "not started: " << action.action()
        << " (a run of the schedule is running; see `taskboard schedules describe " << options.name
        << "`)\n";
  }
  return 0;
}

int RunSchedulesBackfill(const SchedulesOptions& options, std::ostream& out, std::ostream& err) {
  v1::BackfillScheduleRequest request;
  request.set_name(options.name);
  request.set_overlap(options.overlap);
  absl::Time from;
  absl::Time to;
  if (!ParseTime(options.from, "--from", &from, err) || !ParseTime(options.to, "--to", &to, err)) {
    return 1;
  }
  *request.mutable_start_time() = Stamp(from);
  *request.mutable_end_time() = Stamp(to);
  SchedulerClient client(options.scheduler);
  v1::BackfillScheduleResponse response;
  if (int code = CallScheduler(client, "taskboard schedules backfill",
                               &v1::Scheduler::Stub::BackfillSchedule, request, &response, err);
      code != 0) {
    return code;
  }
  int started = 0;
  for (const v1::ScheduleAction& action : response.actions()) started += action.action() == "start";
  out << response.actions_size() << " fire times, " << started << " started or found\n";
  PrintActions(response.actions(), options.width, out);
  return 0;
}

int RunSchedulesDelete(const SchedulesOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::DeleteScheduleRequest request;
  request.set_name(options.name);
  v1::DeleteScheduleResponse response;
  if (int code = CallScheduler(client, "taskboard schedules delete",
                               &v1::Scheduler::Stub::DeleteSchedule, request, &response, err);
      code != 0) {
    return code;
  }
  out << "deleted schedule " << options.name << "\n";
  return 0;
}

void AddSchedulesCommand(CLI::App& app, CommandSet& commands) {
  CLI::App* group = app.add_subcommand(
      "schedules",
      "List the scheduler's schedules (or manage them: create, update, describe, pause, "
      "unpause, trigger, backfill, delete)");
  group->require_subcommand(0, 1);
  const auto add = [&](const char* name, const char* description, auto run, const auto& declare) {
    auto options = std::make_shared<SchedulesOptions>();
    options->width = commands.out_terminal().width;
    CLI::App* command = group->add_subcommand(name, description);
    declare(command, *options);
    AddSchedulerOption(command, &options->scheduler);
    commands.Add(command, [options, run](std::ostream& out, std::ostream& err) {
      return run(*options, out, err);
    });
  };
  const auto named = [](CLI::App* command, SchedulesOptions& options) {
    command->add_option("name", options.name, "Schedule name")->required();
  };
  add("list", "List schedules with their next fire time", RunSchedulesList,
      [](CLI::App* command, SchedulesOptions& options) {
        command->add_flag("--json", options.json, "Print the ListSchedules response as JSON");
      });
  add("create", "Check a schedule file and create the schedule", RunSchedulesCreate,
      [](CLI::App* command, SchedulesOptions& options) {
        command->add_option("-f,--file", options.path, "Schedule file (YAML or JSON), or -")
            ->required();
        command->add_flag("--json", options.json, "Print the created schedule as JSON");
      });
  add("update", "Replace a schedule's definition from its file", RunSchedulesUpdate,
      [](CLI::App* command, SchedulesOptions& options) {
        command->add_option("-f,--file", options.path, "Schedule file (YAML or JSON), or -")
            ->required();
      });
  add("describe", "Show a schedule: next 10 fire times, recent actions and their runs",
      RunSchedulesDescribe, [&](CLI::App* command, SchedulesOptions& options) {
        named(command, options);
        command->add_flag("--json", options.json, "Print the schedule as JSON");
      });
  add("pause", "Pause a schedule: fires due while paused are skipped", RunSchedulesPause,
      [&](CLI::App* command, SchedulesOptions& options) {
        named(command, options);
        command->add_option("--note", options.note, "Why (shown by describe)");
      });
  add("unpause", "Unpause a schedule", RunSchedulesUnpause,
      [&](CLI::App* command, SchedulesOptions& options) {
        named(command, options);
        command->add_option("--note", options.note, "Why (shown by describe)");
      });
  add("trigger", "Fire a schedule now (also while paused)", RunSchedulesTrigger,
      [&](CLI::App* command, SchedulesOptions& options) {
        named(command, options);
        command->add_option("--overlap", options.overlap,
                            "Overlap policy for this fire (default: the schedule's)");
      });
  add("backfill", "Run every fire time of a past range (at most 1000)", RunSchedulesBackfill,
      [&](CLI::App* command, SchedulesOptions& options) {
        named(command, options);
        command->add_option("--from", options.from, "Start, RFC 3339, inclusive")->required();
        command->add_option("--to", options.to, "End, RFC 3339, exclusive")->required();
        command->add_option("--overlap", options.overlap,
                            "Overlap policy (default: the schedule's; allow_all runs them all)");
      });
  add("delete", "Delete a schedule (its runs go on)", RunSchedulesDelete, named);
  auto listing = std::make_shared<SchedulesOptions>();
  listing->width = commands.out_terminal().width;
  group->add_flag("--json", listing->json, "Print the ListSchedules response as JSON");
  AddSchedulerOption(group, &listing->scheduler);
  commands.Add(group, [listing](std::ostream& out, std::ostream& err) {
    return RunSchedulesList(*listing, out, err);
  });
}

}  // namespace taskboard::cli
