#ifndef TASKBOARD_TESTS_TESTING_AGENTS_DIR_H_
#define TASKBOARD_TESTS_TESTING_AGENTS_DIR_H_

// An agents directory of a test binary's own: the integration agents (echo:
// tests/integration/agents/script.sh) plus agent files the suite adds, so
// other tests listing the shared directory's agents are not disturbed.

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "tests/testing/cluster.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::testing {

// Made on the first call (later calls return the same directory and ignore
// `extra`), removed when the test binary exits. `extra`: file name -> text.
inline std::string IntegrationAgentsWith(const std::map<std::string, std::string>& extra) {
  static TempDir dir;
  static const bool made = [&] {
    const std::filesystem::path shared = SourcePath("tests/integration/agents");
    std::filesystem::copy_file(shared / "script.sh", dir.path() / "script.sh");
    std::filesystem::copy_file(shared / "echo.yaml", dir.path() / "echo.yaml");
    for (const auto& [name, text] : extra) std::ofstream(dir.path() / name) << text;
    return true;
  }();
  (void)made;
  return dir.path().string();
}

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_AGENTS_DIR_H_
