#ifndef TASKBOARD_TESTS_TESTING_PROMTOOL_H_
#define TASKBOARD_TESTS_TESTING_PROMTOOL_H_

// Runs the real `promtool check metrics` (Debian package `prometheus`) over a
// Prometheus text exposition, for tests that lint what a service exports.

#include <stdio.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"

namespace taskboard::testing {

struct Promtool {
  int exit_code = -1;
  std::string output;  // stdout and stderr: empty when the lint is clean
};

// `promtool check metrics` on `exposition`, written to `path` first; nullopt
// when promtool is not installed.
inline std::optional<Promtool> CheckMetrics(const std::string& exposition,
                                            const std::string& path) {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) return std::nullopt;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << exposition;
  Promtool result;
  FILE* pipe = popen(absl::StrCat("promtool check metrics < '", path, "' 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t read = 0;
  while ((read = fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.output.append(buffer, read);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_PROMTOOL_H_
