#ifndef TASKBOARD_TESTS_CLI_CLI_RUNNER_H_
#define TASKBOARD_TESTS_CLI_CLI_RUNNER_H_

// Runs the `taskboard` command line in-process (RunCli: CLI11 parsing and the
// chosen command) with string streams and no terminal, as a script or CI
// would see it.

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tools/cli/cli_app.h"

namespace taskboard::cli::testing {

struct CliResult {
  int exit_code;
  std::string out;
  std::string err;
};

inline CliResult Cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = RunCli(args, out, err);
  return {code, out.str(), err.str()};
}

inline std::string ExampleFlow(const std::string& name) {
  return (std::filesystem::path(TASKBOARD_SOURCE_DIR) / "examples" / "flows" / name).string();
}

}  // namespace taskboard::cli::testing

#endif  // TASKBOARD_TESTS_CLI_CLI_RUNNER_H_
