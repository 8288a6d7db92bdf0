// `taskboard dev` serves the web console (docs/console.md): it prints the
// console's link with this session's token, the page and its script load
// from the scheduler with a Content-Security-Policy, and the HTTP API answers
// only calls that carry the token (docs/security.md#browsers-and-other-sites).
// It says it is up only once its worker has connected, so a flow submitted
// that moment finds its default agent.

#include <signal.h>

#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/child_process.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "taskboard/v1/scheduler.grpc.pb.h"
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

  // Submitted the moment the ready file appears, a flow that leaves its
  // agent to the default finds the worker connected.
  const std::string address(absl::StripAsciiWhitespace(Slurp(ready)));
  std::unique_ptr<v1::Scheduler::Stub> client =
      v1::Scheduler::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  v1::SubmitRunRequest submit;
  submit.mutable_source()->set_text("name: right-away\ntask: hello\n");
  v1::SubmitRunResponse submitted;
  grpc::ClientContext submit_context;
  const grpc::Status accepted = client->SubmitRun(&submit_context, submit, &submitted);
  ASSERT_TRUE(accepted.ok()) << accepted.error_message() << "\n" << Slurp(out);

  std::smatch match;
  const std::string printed = Slurp(out);
  const std::regex console_line(R"(console +http://127\.0\.0\.1:(\d+)/#token=([0-9a-f]{64})\n)");
  ASSERT_TRUE(std::regex_search(printed, match, console_line)) << printed;
  httplib::Client http("127.0.0.1", std::stoi(match[1]));
  const std::string token = match[2];
  EXPECT_EQ(Slurp(dir.path() / "data" / "console.token"), token + "\n");
  EXPECT_EQ(std::filesystem::status(dir.path() / "data" / "console.token").permissions() &
                std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

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

  httplib::Result anonymous = http.Post("/api/v1/ListRuns", "{}", "application/json");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401) << anonymous->body;
  httplib::Result runs = http.Post("/api/v1/ListRuns", {{"Authorization", "Bearer " + token}}, "{}",
                                   "application/json");
  ASSERT_TRUE(runs);
  EXPECT_EQ(runs->status, 200) << runs->body;

  // The run submitted at once completes.
  v1::Run run;
  const absl::Time run_deadline = absl::Now() + absl::Seconds(30);
  while (absl::Now() < run_deadline) {
    v1::GetRunRequest get;
    get.set_run_id(submitted.run_id());
    v1::GetRunResponse got;
    grpc::ClientContext get_context;
    if (client->GetRun(&get_context, get, &got).ok() &&
        got.run().status() != v1::RUN_STATUS_RUNNING &&
        got.run().status() != v1::RUN_STATUS_PENDING) {
      run = got.run();
      break;
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << "\n" << Slurp(out);

  (*dev)->Signal(SIGINT);
  EXPECT_EQ((*dev)->WaitFor(30'000), 0) << Slurp(out);
}

}  // namespace
}  // namespace taskboard
