#include "tools/cli/state_command.h"

#include <cstdlib>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/json.h"

namespace taskboard::cli {
int RunState(const StateOptions& options, std::istream& in, std::ostream& out, std::ostream& err) {
  const std::string who = absl::StrCat("taskboard state ", options.verb);
  ToolOptions tool;
  tool.socket_path = options.socket_path;
  tool.token = options.token;
  Json args = Json::object();
  if (options.verb == "info") {
    tool.tool = "flow_state";
    if (options.conversation) args["conversation"] = true;
  } else {
    tool.tool = absl::StrCat("state_", options.verb);
    if (options.context) args["space"] = "context";
    if (options.verb != "list") args["key"] = options.key;
  }
  if (options.verb == "set") {
    std::string text = options.value;
    if (text == "-") text.assign(std::istreambuf_iterator<char>(in), {});
    if (options.context) {
      absl::StatusOr<Json> parsed = ParseJson(text);
      if (!parsed.ok()) {
        err << who << ": with --context the value must be JSON (" << parsed.status().message()
            << "); quote text as '\"text\"'\n";
        return 2;
      }
      args["value"] = *std::move(parsed);
    } else {
      args["value"] = text;
    }
  }
  tool.args = DumpJson(args);

  std::ostringstream result;
  std::ostringstream tool_err;
  const int code = RunTool(tool, in, result, tool_err);
  if (code != 0) {
    // RunTool names `taskboard tool state_x`; say what the user typed.
    std::string message = tool_err.str();
    const std::string prefix = absl::StrCat("taskboard tool ", tool.tool, ": ");
    if (absl::StartsWith(message, prefix))
      message = absl::StrCat(who, ": ", message.substr(prefix.size()));
    err << message;
    return code;
  }
  absl::StatusOr<Json> answer = ParseJson(absl::StripAsciiWhitespace(result.str()));
  if (!answer.ok() || !answer->is_object()) {
    out << result.str();
    return 0;
  }
  if (options.verb == "get") {
    if (!answer->value("found", false)) {
      err << who << ": '" << options.key << "' is not set"
          << (options.context ? " in the context space" : "") << "\n";
      return 3;
    }
    const Json& value = (*answer)["value"];
    out << (value.is_string() && !options.context ? value.get<std::string>() : DumpJson(value))
        << "\n";
  } else if (options.verb == "list") {
    out << DumpJson((*answer)["entries"]) << "\n";
  } else if (options.verb == "info") {
    out << DumpJson(*answer) << "\n";
  }
  return 0;
}

void AddStateCommand(CLI::App& app, CommandSet& commands) {
  CLI::App* command = app.add_subcommand(
      "state",
      "Read and write the run's storage and see where this task runs (inside a command agent or "
      "tool)");
  command->require_subcommand(1);
  auto add = [&](const char* verb, const char* help, bool key, bool value) {
    auto options = std::make_shared<StateOptions>();
    options->verb = verb;
    CLI::App* sub = command->add_subcommand(verb, help);
    if (key) sub->add_option("key", options->key, "The key")->required();
    if (value)
      sub->add_option("value", options->value, "The value; - reads it from stdin")->required();
    if (options->verb == "info") {
      sub->add_flag("--conversation", options->conversation,
                    "Also print the last messages of an LLM agent's conversation");
    } else {
      sub->add_flag("--context", options->context,
                    "The context space, whose values are JSON (default: storage, text values)");
    }
    commands.Add(sub, [options](std::ostream& out, std::ostream& err) {
      StateOptions run = *options;
      const char* socket = std::getenv("TASKBOARD_TOOL_SOCKET");
      const char* token = std::getenv("TASKBOARD_TASK_TOKEN");
      run.socket_path = socket != nullptr ? socket : "";
      run.token = token != nullptr ? token : "";
      return RunState(run, std::cin, out, err);
    });
  };
  add("get", "Print a value of the run's storage (exit 3 when it is not set)", true, false);
  add("set", "Set a value of the run's storage", true, true);
  add("delete", "Delete a value of the run's storage", true, false);
  add("list", "Print every key and value of the run's storage as a JSON object", false, false);
  add("info", "Print where this task runs: run, task, root run, parent run, attempt, turn", false,
      false);
}

}  // namespace taskboard::cli
