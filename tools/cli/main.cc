// `taskboard`: the command-line client of a Taskboard scheduler.
//
// Commands that only need the flow core (validate) work offline; the rest
// talk to a scheduler at --scheduler / TASKBOARD_SCHEDULER.

#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "tools/cli/validate_command.h"

int main(int argc, char** argv) {
  CLI::App app{"taskboard: run and inspect Taskboard flows"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "taskboard 0.1.0");

  taskboard::cli::ValidateOptions validate;
  CLI::App* validate_cmd = app.add_subcommand(
      "validate", "Check a flow file (JSON or YAML); print its DAG layers or every error");
  validate_cmd->add_option("file", validate.path, "Flow file, or - for standard input")->required();
  validate_cmd->add_flag("-q,--quiet", validate.quiet, "Print the summary and layers only");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help/--version exit 0; usage errors exit 2 like an unreadable file.
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (validate_cmd->parsed()) return taskboard::cli::RunValidate(validate, std::cout, std::cerr);
  return 2;
}
