#ifndef TASKBOARD_TESTS_TESTING_TEMP_DIR_H_
#define TASKBOARD_TESTS_TESTING_TEMP_DIR_H_

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it
// when the object goes away, so tests never share or leak state on disk.

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace taskboard::testing {

class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern =
        (std::filesystem::path(base != nullptr ? base : "/tmp") / "taskboard-test.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_TEMP_DIR_H_
