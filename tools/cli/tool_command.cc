#include "tools/cli/tool_command.h"

#include <cstdlib>
#include <iostream>
#include <iterator>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/unix_socket.h"

namespace taskboard::cli {
namespace {

// Responses carry whole tool results (read_file allows 1 MiB of content,
// command tools 4 MiB of output, both escaped in JSON).
constexpr size_t kMaxResponseBytes = 64 << 20;

std::string EnvOrEmpty(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

int RunTool(const ToolOptions& options, std::istream& in, std::ostream& out, std::ostream& err) {
  const std::string who = absl::StrCat("taskboard tool ", options.tool);
  if (options.socket_path.empty() || options.token.empty()) {
    err << "taskboard tool: this command only works inside an agent run by a Taskboard worker "
           "(TASKBOARD_TOOL_SOCKET and TASKBOARD_TASK_TOKEN are not set); to try a tool, run a "
           "flow whose command agent calls it\n";
    return 2;
  }
  std::string text = options.args.value_or("{}");
  if (text == "-") text.assign(std::istreambuf_iterator<char>(in), {});
  absl::StatusOr<Json> args = ParseJson(text.empty() ? "{}" : text);
  if (!args.ok() || !args->is_object()) {
    err << who << ": the arguments must be a JSON object such as '{\"path\": \"README.md\"}'"
        << (args.ok() ? "" : absl::StrCat(" (", args.status().message(), ")")) << "\n";
    return 2;
  }

  absl::StatusOr<UniqueFd> socket = ConnectUnixSocket(options.socket_path);
  if (!socket.ok()) {
    err << who << ": cannot reach the worker: " << socket.status().message()
        << " (did the task end?)\n";
    return 2;
  }
  const Json request = {{"token", options.token}, {"tool", options.tool}, {"args", *args}};
  if (absl::Status sent = WriteAll(socket->get(), DumpJson(request) + "\n"); !sent.ok()) {
    err << who << ": cannot reach the worker: " << sent.message() << "\n";
    return 2;
  }
  LineReader reader(socket->get(), kMaxResponseBytes);
  absl::StatusOr<std::optional<std::string>> line = reader.Next();
  absl::StatusOr<Json> response =
      line.ok() && line->has_value() ? ParseJson(**line) : absl::StatusOr<Json>(Json());
  if (!line.ok() || !line->has_value() || !response.ok() || !response->is_object()) {
    err << who << ": the worker ended the call without an answer"
        << (line.ok() ? "" : absl::StrCat(" (", line.status().message(), ")")) << "\n";
    return 2;
  }
  if (response->value("ok", false)) {
    out << DumpJson(response->contains("result") ? (*response)["result"] : Json()) << "\n";
    return 0;
  }
  const Json& error = (*response)["error"];
  err << who << ": " << (error.is_string() ? error.get<std::string>() : DumpJson(error)) << "\n";
  return 1;
}

void AddToolCommand(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<ToolOptions>();
  auto args = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "tool", "Call a worker tool from inside a command agent (cached and recorded as the task's)");
  command->add_option("name", options->tool, "Tool name, e.g. read_file")->required();
  command->add_option("args", *args,
                      "Arguments as a JSON object (default {}); - reads them from stdin");
  commands.Add(command, [options, args, command](std::ostream& out, std::ostream& err) {
    ToolOptions run = *options;
    if (command->count("args") > 0) run.args = *args;
    run.socket_path = EnvOrEmpty("TASKBOARD_TOOL_SOCKET");
    run.token = EnvOrEmpty("TASKBOARD_TASK_TOKEN");
    return RunTool(run, std::cin, out, err);
  });
}

}  // namespace taskboard::cli
