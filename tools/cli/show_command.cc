#include "tools/cli/show_command.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "tools/cli/child_run_snapshots.h"
#include "tools/cli/display_format.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/rpc_call.h"
#include "tools/cli/rpc_errors.h"
#include "tools/cli/run_billing.h"
#include "tools/cli/run_deadline_line.h"
#include "tools/cli/run_render.h"
#include "tools/cli/run_states.h"
#include "tools/cli/started_by_line.h"
#include "tools/cli/task_attempts.h"
#include "tools/cli/task_tool_calls.h"
#include "tools/cli/text_table.h"

namespace taskboard::cli {
namespace {

// Calls listed per task unless the task was named with --task, which lists
// them all: a task that read a whole tree would otherwise fill the screen.
constexpr int kCallsPerTask = 10;

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

void PrintToolCalls(const TaskDetails& details, const TerminalInfo& terminal, std::ostream& out) {
  out << "\ntool calls:\n";
  const ToolCallsOptions options{
      .color = terminal.color, .width = terminal.width, .max_calls = details.max_calls};
  for (const v1::GetTaskResponse& task : details.tasks) out << RenderTaskToolCalls(task, options);
  if (details.not_listed > 0) {
    out << "… " << details.not_listed << (details.not_listed == 1 ? " more task" : " more tasks")
        << " ran: --tasks 0 lists them all, --task ID one\n";
  }
}

// Dispatched at least once: only such a task has prior work or tool calls.
bool Ran(const v1::Task& task) { return task.attempt() > 0 || task.has_started_at(); }

// The tasks whose tool calls to fetch: the named ones, else the first
// `max_tasks` that ran, in the order they started (a snapshot lists tasks in
// storage order), counting the others in `not_listed`.
std::vector<std::string> TasksToList(const v1::Run& run, const ShowOptions& options,
                                     int* not_listed) {
  if (!options.task_ids.empty()) return options.task_ids;
  std::vector<const v1::Task*> ran;
  for (const v1::Task& task : run.tasks()) {
    if (Ran(task)) ran.push_back(&task);
  }
  // Dispatched but not started yet: after the others.
  const auto start = [](const v1::Task* task) {
    return TimeFromProto(task->started_at()).value_or(absl::InfiniteFuture());
  };
  std::stable_sort(ran.begin(), ran.end(),
                   [&start](const v1::Task* a, const v1::Task* b) { return start(a) < start(b); });
  const size_t listed = options.max_tasks > 0
                            ? std::min(ran.size(), static_cast<size_t>(options.max_tasks))
                            : ran.size();
  *not_listed = static_cast<int>(ran.size() - listed);
  std::vector<std::string> ids;
  for (size_t i = 0; i < listed; ++i) ids.push_back(ran[i]->task_id());
  return ids;
}

// `--json --task`: one JSON document, an array of GetTaskResponse.
void PrintTasksJson(const TaskDetails& details, std::ostream& out) {
  std::vector<std::string> tasks;
  for (const v1::GetTaskResponse& task : details.tasks) tasks.push_back(ProtoToJsonPretty(task));
  out << "[\n" << absl::StrJoin(tasks, ",\n") << "\n]\n";
}

}  // namespace

void PrintRunDetails(const v1::Run& run, absl::Time now, const TerminalInfo& terminal,
                     std::ostream& out, const TaskDetails& details) {
  RenderOptions render;
  render.color = terminal.color;
  render.width = terminal.width;
  render.children = &details.children;
  out << RenderRun(run, now, render);
  if (std::string started_by = StartedByLine(run); !started_by.empty()) out << started_by << "\n";
  // The header's usage sums the tasks' final results; budgets count every
  // call made (retries too), so that figure gets a line of its own.
  if (std::string billed = BilledLine(run); !billed.empty()) out << billed << "\n";
  if (std::string deadline = RunDeadlineLine(run, now); !deadline.empty()) {
    out << deadline << "\n";
  }
  if (run.tasks_size() > 0) {
    out << "\ntasks:\n";
    PrintTasks(run, now, terminal.width, out);
    if (std::string attempts = RenderEarlierAttempts(run, terminal.width); !attempts.empty()) {
      out << "\n" << attempts;
    }
  }
  if (!details.tasks.empty()) PrintToolCalls(details, terminal, out);
  if (!run.error().empty()) {
    out << "\nerror: " << run.error() << "\n";
    if (std::string hint = BudgetResumeHint(run); !hint.empty()) out << "  " << hint << "\n";
  }
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
  // `--json` alone stays the Run message scripts read: no GetTask calls.
  if (options.json && options.task_ids.empty()) {
    out << ProtoToJsonPretty(response.run()) << "\n";
    return 0;
  }
  TaskDetails details;
  details.max_calls = options.task_ids.empty() ? kCallsPerTask : 0;
  if (grpc::Status status = FetchChildRuns(client, response.run(), &details.children);
      !status.ok()) {
    return ReportRpcError("taskboard show", client.address(), status, err);
  }
  for (const std::string& task_id : TasksToList(response.run(), options, &details.not_listed)) {
    v1::GetTaskRequest task_request;
    task_request.set_run_id(options.run_id);
    task_request.set_task_id(task_id);
    if (int code = CallScheduler(client, "taskboard show", &v1::Scheduler::Stub::GetTask,
                                 task_request, &details.tasks.emplace_back(), err);
        code != 0) {
      return code;
    }
  }
  if (options.json) {
    PrintTasksJson(details, out);
  } else {
    PrintRunDetails(response.run(), absl::Now(), options.terminal, out, details);
  }
  return 0;
}

void AddShowCommand(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<ShowOptions>();
  options->terminal = commands.out_terminal();
  CLI::App* command = app.add_subcommand(
      "show", "Show a run: its phases or tasks, a task table, tool calls and the output");
  command->add_option("run", options->run_id, "Run id")->required();
  command->add_flag("--json", options->json,
                    "Print the run as JSON (with --task: the tasks, as GetTask returns them)");
  command
      ->add_option("--tasks", options->max_tasks,
                   "List the tool calls of at most N tasks that ran (0: all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  // One value per --task, so `show --task a RUN` keeps the run id.
  command
      ->add_option("--task", options->task_ids,
                   "List only this task's tool calls, every one (repeatable)")
      ->allow_extra_args(false);
  AddSchedulerOption(command, &options->scheduler);
  commands.Add(command, [options](std::ostream& out, std::ostream& err) {
    return RunShow(*options, out, err);
  });
}

}  // namespace taskboard::cli
