#include "tools/cli/show_command.h"

#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tools/cli/display_format.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/rpc_call.h"
#include "tools/cli/run_render.h"
#include "tools/cli/run_states.h"
#include "tools/cli/text_table.h"

namespace taskboard::cli {
namespace {

void PrintTasks(const v1::Run& run, absl::Time now, int width, std::ostream& out) {
  TextTable table({"TASK", "STATE", "AGENT", "ATTEMPT", "WORKER", "DURATION", "NOTE"});
  for (const v1::Task& task : run.tasks()) {
    const std::optional<absl::Duration> took = Elapsed(task.started_at(), task.finished_at(), now);
    std::string note = TaskOutcome(task);
    if (!task.child_run_id().empty()) {
      absl::StrAppend(&note, note.empty() ? "" : "; ", "child run ", task.child_run_id());
    }
    table.AddRow({task.task_id(), TaskStateName(task.state()),
                  task.agent().empty() ? "-" : task.agent(), absl::StrCat(task.attempt()),
                  task.worker_id().empty() ? "-" : task.worker_id(),
                  took ? FormatElapsed(*took) : "-", note});
  }
  table.Print(out, width);
}

}  // namespace

void PrintRunDetails(const v1::Run& run, absl::Time now, const TerminalInfo& terminal,
                     std::ostream& out) {
  RenderOptions render;
  render.color = terminal.color;
  render.width = terminal.width;
  out << RenderRun(run, now, render);
  if (run.tasks_size() > 0) {
    out << "\ntasks:\n";
    PrintTasks(run, now, terminal.width, out);
  }
  if (!run.error().empty()) out << "\nerror: " << run.error() << "\n";
  if (!run.output().empty()) {
    out << "\noutput:\n" << run.output();
    if (run.output().back() != '\n') out << "\n";
  }
}

int RunShow(const ShowOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::GetRunRequest request;
  request.set_run_id(options.run_id);
  v1::GetRunResponse response;
  if (int code = CallScheduler(client, "taskboard show", &v1::Scheduler::Stub::GetRun, request,
                               &response, err);
      code != 0) {
    return code;
  }
  if (options.json) {
    out << ProtoToJsonPretty(response.run()) << "\n";
  } else {
    PrintRunDetails(response.run(), absl::Now(), options.terminal, out);
  }
  return 0;
}

void AddShowCommand(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<ShowOptions>();
  options->terminal = commands.out_terminal();
  CLI::App* command =
      app.add_subcommand("show", "Show a run: its phases or tasks, a task table and the output");
  command->add_option("run", options->run_id, "Run id")->required();
  command->add_flag("--json", options->json, "Print the run as JSON");
  AddSchedulerOption(command, &options->scheduler);
  commands.Add(command, [options](std::ostream& out, std::ostream& err) {
    return RunShow(*options, out, err);
  });
}

}  // namespace taskboard::cli
