#include "worker/agents/command_agent.h"

#include <unistd.h>

#include <map>
#include <string>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/utf8.h"
#include "worker/agents/task_directory.h"
#include "worker/agents/task_envelope.h"
#include "worker/agents/thinking_level.h"
#include "worker/base/child_environment.h"
#include "worker/base/subprocess.h"

namespace taskboard::worker {
namespace {

// The last non-empty line of a stderr tail, for one-line error messages.
std::string LastLine(absl::string_view text) {
  text = absl::StripTrailingAsciiWhitespace(text);
  const size_t newline = text.rfind('\n');
  if (newline != absl::string_view::npos) text.remove_prefix(newline + 1);
  if (text.size() > 500) text = text.substr(0, 500);
  return ToValidUtf8(text);
}

std::string StderrSuffix(const std::string& stderr_tail) {
  const std::string line = LastLine(stderr_tail);
  return line.empty() ? " (nothing on stderr)" : absl::StrCat(": ", line);
}

}  // namespace

CommandAgent::CommandAgent(AgentDefinition definition, CommandAgentOptions options)
    : definition_(std::move(definition)), options_(std::move(options)) {
  info_.set_name(definition_.name);
  info_.set_description(definition_.description);
  info_.set_type("command");
  info_.set_model(definition_.model);
}

absl::StatusOr<std::string> CommandAgent::WorkingDirectory(const v1::Assignment& assignment,
                                                           const AgentContext& context) const {
  // The agent file's cwd is the operator's choice and stands unless the
  // phase names one; otherwise the task's directory.
  const std::filesystem::path prepared = context.directory();
  if (!prepared.empty() && (!assignment.cwd().empty() || definition_.cwd.empty())) {
    return prepared.string();
  }
  if (!assignment.cwd().empty()) {
    absl::StatusOr<std::filesystem::path> directory = TaskDirectory(assignment, options_.workdir);
    if (!directory.ok()) return directory.status();
    return directory->string();
  }
  if (!definition_.cwd.empty()) return definition_.cwd.string();
  return options_.workdir.string();
}

std::vector<std::string> CommandAgent::Environment(const v1::Assignment& assignment,
                                                   AgentContext& context,
                                                   const std::string& cwd) const {
  // Later entries win: what the worker passes on (ChildEnvironment), the
  // agent file's env, then what Taskboard sets.
  std::map<std::string, std::string> vars = ChildEnvironment(definition_.pass_env);
  for (const auto& [name, value] : definition_.env) vars[name] = value;
  for (auto& [name, value] : TaskEnvironment(assignment)) vars[name] = std::move(value);
  // The level as the flow or agent file wrote it (pi's off ... xhigh): the
  // program maps it onto whatever model it calls.
  if (std::string thinking = TaskThinking(assignment, definition_); !thinking.empty()) {
    vars["TASKBOARD_THINKING"] = std::move(thinking);
  }
  vars["TASKBOARD_AGENT_DIR"] =
      std::filesystem::absolute(definition_.source.parent_path()).lexically_normal().string();
  // Tools resolve relative paths where the agent runs (the process's own
  // directory when no cwd is set anywhere).
  std::error_code ec;
  const std::filesystem::path tool_dir =
      cwd.empty() ? std::filesystem::current_path(ec) : std::filesystem::absolute(cwd, ec);
  for (auto& [name, value] : context.ToolEnvironment(tool_dir)) vars[name] = std::move(value);
  // A traced attempt's context, so that the program's own OpenTelemetry SDK
  // joins the trace under the attempt's span (docs/observability.md#worker-spans).
  // Taskboard's alone: one passed on or set by the agent file would join
  // every task to some other trace.
  vars.erase("TRACEPARENT");
  vars.erase("TRACESTATE");
  if (const TaskTrace* trace = context.trace(); trace != nullptr) {
    for (auto& [name, value] : trace->Environment()) vars[name] = std::move(value);
  }
  if (!options_.bin_dir.empty()) {
    auto path = vars.find("PATH");
    vars["PATH"] = path == vars.end() || path->second.empty()
                       ? absl::StrCat(options_.bin_dir.string(), ":/usr/local/bin:/usr/bin:/bin")
                       : absl::StrCat(options_.bin_dir.string(), ":", path->second);
  }
  return EnvironmentStrings(vars);
}

AgentOutcome CommandAgent::Run(const v1::Assignment& assignment, AgentContext& context) const {
  const CancelToken& cancellation = context.cancellation();
  if (cancellation.cancelled()) return CancelledOutcome(assignment, cancellation);

  const std::string who = absl::StrCat("command agent '", definition_.name, "'");
  AgentOutcome outcome;
  outcome.execution.set_prompt(assignment.prompt());
  outcome.execution.set_system_prompt(definition_.system_prompt);
  absl::StatusOr<std::string> cwd = WorkingDirectory(assignment, context);
  if (!cwd.ok()) {
    outcome.error = absl::StrCat(who, ": ", cwd.status().message());
    return outcome;
  }
  SubprocessOptions process;
  process.argv = definition_.argv;
  process.cwd = *std::move(cwd);
  process.env = Environment(assignment, context, process.cwd);
  process.stdin_data = DumpJson(TaskEnvelope(assignment));
  process.timeout = definition_.timeout;
  if (assignment.timeout_seconds() > 0) {
    process.timeout = std::min(process.timeout, absl::Seconds(assignment.timeout_seconds()));
  }
  process.kill_grace = options_.kill_grace;
  process.max_stdout_bytes = options_.max_output_bytes;
  process.cancel = &cancellation;
  process.on_stdout = [&context](absl::string_view chunk) { context.EmitOutput(chunk); };

  absl::StatusOr<SubprocessResult> ran = RunSubprocess(process);
  if (!ran.ok()) {
    outcome.error = absl::StrCat(who, ": ", ran.status().message());
    outcome.execution.set_stopped(true);
    outcome.execution.set_stop_reason("error");
    outcome.execution.set_exit_code(-1);
    return outcome;
  }
  // Shell convention: a process killed by signal N reports 128 + N.
  outcome.execution.set_exit_code(ran->term_signal != 0 ? 128 + ran->term_signal : ran->exit_code);
  outcome.execution.set_stderr_tail(ToValidUtf8(ran->stderr_tail));
  outcome.output = ToValidUtf8(ran->stdout_data);

  using Ending = SubprocessResult::Ending;
  switch (ran->ending) {
    case Ending::kExited:
      if (ran->exit_code == 0) {
        outcome.success = true;
      } else {
        outcome.error =
            absl::StrCat(who, " exited with code ", ran->exit_code, StderrSuffix(ran->stderr_tail));
      }
      break;
    case Ending::kSignaled:
      outcome.error = absl::StrCat(who, " was killed by ", SignalName(ran->term_signal),
                                   StderrSuffix(ran->stderr_tail));
      break;
    case Ending::kTimedOut:
      outcome.error =
          absl::StrCat(who, " timed out after ", absl::ToDoubleSeconds(process.timeout), "s");
      outcome.execution.set_stopped(true);
      outcome.execution.set_stop_reason("timeout");
      break;
    case Ending::kCancelled: {
      AgentOutcome cancelled = CancelledOutcome(assignment, cancellation);
      outcome.error = std::move(cancelled.error);
      outcome.execution.set_stopped(true);
      outcome.execution.set_stop_reason(cancelled.execution.stop_reason());
      break;
    }
    case Ending::kOutputTooLarge:
      outcome.error = absl::StrCat(who, " wrote more than ", options_.max_output_bytes,
                                   " bytes to stdout, the output limit: write large results to a "
                                   "file and print its path instead");
      outcome.execution.set_stopped(true);
      outcome.execution.set_stop_reason("output_limit");
      break;
  }
  return outcome;
}

}  // namespace taskboard::worker
