#ifndef TASKBOARD_COMMON_COMMAND_LINE_H_
#define TASKBOARD_COMMON_COMMAND_LINE_H_

// How every Taskboard service parses its command line with CLI11, so that
// they exit alike: 0 after --help or --version, 2 after a usage error (an
// unknown flag, a value a check refused), CLI11 having printed what it had
// to. Header-only so taskboard_common, which the fuzzers link, stays free of
// CLI11.

#include <optional>

#include "CLI/CLI.hpp"

namespace taskboard {

// Parses argv with `app`. Empty when the program should go on; else the
// exit code it should return.
inline std::optional<int> ParseCommandLine(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return std::nullopt;
}

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_COMMAND_LINE_H_
