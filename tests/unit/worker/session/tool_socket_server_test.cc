// The tool socket command agents call through: the line protocol over a real
// Unix socket, tokens, and revocation.

#include "worker/session/tool_socket_server.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/unix_socket.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/unit/worker/session/fake_tool_link.h"
#include "tests/unit/worker/tools/test_tools.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::TempDir;
using ::taskboard::worker::testing::CountingTool;
using ::taskboard::worker::testing::FakeToolLink;
using ::testing::HasSubstr;
using ::testing::SizeIs;

class ToolSocketServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto tool = std::make_unique<CountingTool>("echo");
    tool_ = tool.get();
    ASSERT_THAT(registry_.Add(std::move(tool)), IsOk());
    caller_ = std::make_unique<ToolCaller>(registry_, link_);
    link_.set_caller(caller_.get());
    link_.AnswerWith(v1::ToolDecision::OUTCOME_NOT_CACHEABLE);
    absl::StatusOr<std::unique_ptr<ToolSocketServer>> server =
        ToolSocketServer::Start(*caller_, {.parent_dir = tmp_.path()});
    ASSERT_THAT(server, IsOk());
    server_ = *std::move(server);
  }

  std::string GrantScan() {
    ToolTask task;
    task.task_id = "scan";
    task.lease_id = "l1";
    task.workdir = "/work/repo";
    return server_->Grant(task);
  }

  // One request over a fresh connection; the parsed response.
  Json Request(const Json& request) {
    absl::StatusOr<UniqueFd> fd = ConnectUnixSocket(server_->path());
    EXPECT_THAT(fd, IsOk());
    if (!fd.ok()) return nullptr;
    EXPECT_THAT(WriteAll(fd->get(), DumpJson(request) + "\n"), IsOk());
    LineReader reader(fd->get(), 1 << 20);
    absl::StatusOr<std::optional<std::string>> line = reader.Next(absl::Seconds(10));
    EXPECT_THAT(line, IsOk());
    if (!line.ok() || !line->has_value()) return nullptr;
    return Json::parse(**line);
  }

  TempDir tmp_;
  ToolRegistry registry_;
  CountingTool* tool_;
  FakeToolLink link_;
  std::unique_ptr<ToolCaller> caller_;
  std::unique_ptr<ToolSocketServer> server_;
};

TEST_F(ToolSocketServerTest, Call_RoundTripsAndIsObservedForTheGrantedTask) {
  const std::string token = GrantScan();
  const Json response = Request({{"token", token}, {"tool", "echo"}, {"args", {{"path", "a"}}}});
  EXPECT_EQ(response, Json::parse(R"({"ok": true, "result": {"echo": {"path": "a"}},
                                      "cached": false, "cache_age_ms": 0, "source_task": null})"));
  EXPECT_EQ(tool_->last_workdir(), "/work/repo");
  ASSERT_THAT(link_.observations(), SizeIs(1));
  EXPECT_EQ(link_.observations()[0].task_id(), "scan");
  EXPECT_EQ(link_.observations()[0].lease_id(), "l1");
  server_->Revoke(token);
}

TEST_F(ToolSocketServerTest, CachedResult_CarriesAgeAndSourceTask) {
  v1::ToolDecision hit;
  hit.set_outcome(v1::ToolDecision::OUTCOME_HIT);
  hit.set_result_json(R"([1,2])");
  hit.set_cache_age_ms(50);
  hit.mutable_source_task()->set_run_id("r0");
  hit.mutable_source_task()->set_task_id("first");
  link_.AnswerWith(hit);
  const std::string token = GrantScan();
  const Json response = Request({{"token", token}, {"tool", "echo"}});
  EXPECT_EQ(response, Json::parse(R"({"ok": true, "result": [1, 2], "cached": true,
                                      "cache_age_ms": 50,
                                      "source_task": {"run_id": "r0", "task_id": "first"}})"));
  server_->Revoke(token);
}

TEST_F(ToolSocketServerTest, BadToken_RefusedWithoutCalling) {
  const Json response = Request({{"token", "made-up"}, {"tool", "echo"}});
  EXPECT_EQ(response["ok"], false);
  EXPECT_THAT(response["error"].get<std::string>(), HasSubstr("task token is not valid"));
  EXPECT_EQ(tool_->executions(), 0);
}

TEST_F(ToolSocketServerTest, TokenOfAFinishedTask_Refused) {
  const std::string token = GrantScan();
  server_->Revoke(token);
  const Json response = Request({{"token", token}, {"tool", "echo"}});
  EXPECT_EQ(response["ok"], false);
  EXPECT_THAT(response["error"].get<std::string>(), HasSubstr("task token is not valid"));
}

TEST_F(ToolSocketServerTest, ToolError_ComesBackAsError) {
  tool_->fail = "exited with code 3: boom";
  const std::string token = GrantScan();
  EXPECT_EQ(Request({{"token", token}, {"tool", "echo"}}),
            Json::parse(R"({"ok": false, "error": "exited with code 3: boom"})"));
  EXPECT_THAT(Request({{"token", token}, {"tool", "nope"}})["error"].get<std::string>(),
              HasSubstr("unknown tool 'nope'"));
  server_->Revoke(token);
}

TEST_F(ToolSocketServerTest, MalformedRequests_ExplainedNotDropped) {
  EXPECT_THAT(Json::parse(server_->Handle("not json"))["error"].get<std::string>(),
              HasSubstr("not a JSON object"));
  EXPECT_THAT(Json::parse(server_->Handle(R"({"token": "t"})"))["error"].get<std::string>(),
              HasSubstr("no \"tool\""));
  EXPECT_THAT(
      Json::parse(server_->Handle(R"({"token": "t", "tool": "echo", "args": [1]})"))["error"]
          .get<std::string>(),
      HasSubstr("must be a JSON object"));
}

TEST_F(ToolSocketServerTest, OneConnection_ServesSeveralRequestsInOrder) {
  const std::string token = GrantScan();
  absl::StatusOr<UniqueFd> fd = ConnectUnixSocket(server_->path());
  ASSERT_THAT(fd, IsOk());
  const std::string requests =
      DumpJson({{"token", token}, {"tool", "echo"}, {"args", {{"n", 1}}}}) + "\n" +
      DumpJson({{"token", token}, {"tool", "echo"}, {"args", {{"n", 2}}}}) + "\n";
  ASSERT_THAT(WriteAll(fd->get(), requests), IsOk());
  LineReader reader(fd->get(), 1 << 20);
  for (int n = 1; n <= 2; ++n) {
    absl::StatusOr<std::optional<std::string>> line = reader.Next(absl::Seconds(10));
    ASSERT_THAT(line, IsOk());
    ASSERT_TRUE(line->has_value());
    EXPECT_EQ(Json::parse(**line)["result"]["echo"]["n"], n);
  }
  server_->Revoke(token);
}

TEST_F(ToolSocketServerTest, Revoke_CancelsACallInFlightAndWaitsForIt) {
  tool_->block_until_cancelled = true;
  const std::string token = GrantScan();
  Json response;
  std::thread client([&] { response = Request({{"token", token}, {"tool", "echo"}}); });
  const bool started = tool_->WaitForExecutions(1);
  server_->Revoke(token);
  // Revoke returned: the call is over and observed.
  const std::vector<v1::ToolObservation> observations = link_.observations();
  client.join();
  ASSERT_TRUE(started);
  ASSERT_THAT(observations, SizeIs(1));
  EXPECT_THAT(observations[0].error(), HasSubstr("cancelled: the task"));
  EXPECT_EQ(response["ok"], false);
}

TEST_F(ToolSocketServerTest, Socket_InAPrivateDirectoryRemovedOnShutdown) {
  const std::filesystem::path dir = std::filesystem::path(server_->path()).parent_path();
  struct stat info;
  ASSERT_EQ(stat(dir.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  server_.reset();
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace taskboard::worker

namespace taskboard::worker {
namespace {

TEST(ToolSocketServerStart, DirectoriesOfDeadWorkers_RemovedOthersKept) {
  TempDir tmp;
  const pid_t dead = fork();
  if (dead == 0) _exit(0);
  ASSERT_GT(dead, 0);
  ASSERT_EQ(waitpid(dead, nullptr, 0), dead);
  const std::filesystem::path stale = tmp.path() / absl::StrCat("taskboard-worker.", dead, ".ab12");
  const std::filesystem::path alive =
      tmp.path() / absl::StrCat("taskboard-worker.", getpid(), ".cd34");
  const std::filesystem::path other = tmp.path() / "taskboard-worker.notes";
  for (const auto& dir : {stale, alive, other}) std::filesystem::create_directory(dir);

  ToolRegistry registry;
  FakeToolLink link;
  ToolCaller caller(registry, link);
  absl::StatusOr<std::unique_ptr<ToolSocketServer>> server =
      ToolSocketServer::Start(caller, {.parent_dir = tmp.path()});
  ASSERT_THAT(server, IsOk());
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(alive));
  EXPECT_TRUE(std::filesystem::exists(other));
}

}  // namespace
}  // namespace taskboard::worker
