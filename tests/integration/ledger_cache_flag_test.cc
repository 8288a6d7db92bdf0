// --ledger-cache-mb bounds the memory of ledger observation bodies; a value
// outside 0..1048576, or not a number, stops the scheduler at start with a
// usage error naming the flag.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/child_process.h"
#include "common/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using testing::BinaryPath;
using ::testing::HasSubstr;

struct Exited {
  std::optional<int> code;
  std::string output;
};

Exited RunScheduler(const std::vector<std::string>& args) {
  testing::TempDir dir;
  const std::string log = (dir.path() / "out.log").string();
  std::vector<std::string> argv = {BinaryPath("taskboard-scheduler"), "--memory"};
  argv.insert(argv.end(), args.begin(), args.end());
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Spawn(argv, log, {});
  if (!child.ok()) return {std::nullopt, std::string(child.status().message())};
  Exited exited;
  exited.code = (*child)->WaitFor(10'000);
  exited.output = ReadFileOrEmpty(log);
  return exited;
}

TEST(LedgerCacheFlag, Negative_ExitsWithUsageErrorNamingTheFlag) {
  Exited exited = RunScheduler({"--ledger-cache-mb", "-1"});
  EXPECT_EQ(exited.code, 2) << exited.output;
  EXPECT_THAT(exited.output, HasSubstr("--ledger-cache-mb"));
}

TEST(LedgerCacheFlag, OverTheCap_ExitsWithUsageErrorNamingTheFlag) {
  Exited exited = RunScheduler({"--ledger-cache-mb", "2000000"});
  EXPECT_EQ(exited.code, 2) << exited.output;
  EXPECT_THAT(exited.output, HasSubstr("--ledger-cache-mb"));
}

TEST(LedgerCacheFlag, NotANumber_ExitsWithUsageErrorNamingTheFlag) {
  Exited exited = RunScheduler({"--ledger-cache-mb", "lots"});
  EXPECT_EQ(exited.code, 2) << exited.output;
  EXPECT_THAT(exited.output, HasSubstr("--ledger-cache-mb"));
}

}  // namespace
}  // namespace taskboard
