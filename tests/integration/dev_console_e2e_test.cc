// `taskboard dev` serves the web console (docs/console.md): it prints the
// console's URL, the page and its script load from the scheduler with a
// Content-Security-Policy, and the HTTP API answers without a token (dev
// runs without authentication, on loopback only).

#include <signal.h>

#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/child_process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "tests/testing/cluster.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(DevConsoleTest, PrintsTheConsoleUrlAndServesIt) {
  testing::TempDir dir;
  const std::filesystem::path out = dir.path() / "dev.out";
  const std::filesystem::path ready = dir.path() / "ready";
  absl::StatusOr<std::unique_ptr<ChildProcess>> dev = ChildProcess::Spawn(
      {testing::BinaryPath("taskboard"), "dev", "--data-dir", (dir.path() / "data").string(),
       "--listen", "127.0.0.1:0", "--ready-file", ready.string()},
      out.string());
  ASSERT_THAT(dev, IsOk());
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (!std::filesystem::exists(ready) && absl::Now() < deadline && (*dev)->Running()) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_TRUE(std::filesystem::exists(ready)) << Slurp(out);

  std::smatch match;
  const std::string printed = Slurp(out);
  const std::regex console_line(R"(console +http://127\.0\.0\.1:(\d+)/)");
  ASSERT_TRUE(std::regex_search(printed, match, console_line)) << printed;
  httplib::Client http("127.0.0.1", std::stoi(match[1]));

  httplib::Result page = http.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_THAT(page->body, HasSubstr("/assets/app.js"));
  EXPECT_THAT(page->get_header_value("Content-Security-Policy"), HasSubstr("default-src 'none'"));
  httplib::Result script = http.Get("/assets/app.js");
  ASSERT_TRUE(script);
  EXPECT_EQ(script->status, 200);
  EXPECT_THAT(script->get_header_value("Content-Type"), HasSubstr("javascript"));
  EXPECT_GT(script->body.size(), 1000u);
  EXPECT_EQ(http.Get("/assets/nope.js")->status, 404);

  httplib::Result runs = http.Post("/api/v1/ListRuns", "{}", "application/json");
  ASSERT_TRUE(runs);
  EXPECT_EQ(runs->status, 200) << runs->body;

  (*dev)->Signal(SIGINT);
  EXPECT_EQ((*dev)->WaitFor(30'000), 0) << Slurp(out);
}

}  // namespace
}  // namespace taskboard
