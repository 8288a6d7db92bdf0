// Waiting for a child server's port file: the way tests and `taskboard dev`
// learn the port a server bound when it was started on port 0.

#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "common/child_process.h"
#include "gtest/gtest.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

std::unique_ptr<ChildProcess> Shell(const std::string& script, const std::string& log) {
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Spawn({"/bin/sh", "-c", script}, log);
  EXPECT_TRUE(child.ok()) << child.status();
  return child.ok() ? *std::move(child) : nullptr;
}

TEST(WaitForPortFile, ServerWritesItsPort_ReturnsIt) {
  testing::TempDir dir;
  const std::string file = (dir.path() / "port").string();
  std::unique_ptr<ChildProcess> child =
      Shell("sleep 0.1; echo 43211 > " + file + ".tmp && mv " + file + ".tmp " + file +
                "; sleep 5",
            (dir.path() / "log").string());
  ASSERT_NE(child, nullptr);
  absl::StatusOr<int> port = WaitForPortFile(*child, file, 10'000);
  ASSERT_TRUE(port.ok()) << port.status();
  EXPECT_EQ(*port, 43211);
  child->KillGroup();
}

TEST(WaitForPortFile, ServerExitsFirst_Unavailable) {
  testing::TempDir dir;
  std::unique_ptr<ChildProcess> child = Shell("exit 3", (dir.path() / "log").string());
  ASSERT_NE(child, nullptr);
  absl::StatusOr<int> port = WaitForPortFile(*child, (dir.path() / "port").string(), 10'000);
  EXPECT_EQ(port.status().code(), absl::StatusCode::kUnavailable);
}

TEST(WaitForPortFile, StopRequested_Cancelled) {
  testing::TempDir dir;
  std::unique_ptr<ChildProcess> child = Shell("sleep 5", (dir.path() / "log").string());
  ASSERT_NE(child, nullptr);
  absl::StatusOr<int> port =
      WaitForPortFile(*child, (dir.path() / "port").string(), 10'000, [] { return true; });
  EXPECT_EQ(port.status().code(), absl::StatusCode::kCancelled);
  child->KillGroup();
}

}  // namespace
}  // namespace taskboard
