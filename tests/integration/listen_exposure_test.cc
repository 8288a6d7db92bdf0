// Secure by default across the real binary (docs/security.md#production-defaults):
// a scheduler on an address other machines can reach refuses to start
// without --auth-tokens unless --insecure (TASKBOARD_INSECURE) says the
// network is trusted; loopback needs neither.

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/child_process.h"
#include "common/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "taskboard/v1/scheduler.grpc.pb.h"
#include "tests/testing/cluster.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_channel.h"

namespace taskboard {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::TestChannel;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kClientToken[] = "client-token-0123456789";

class ListenExposureTest : public ::testing::Test {
 protected:
  // Starts the scheduler in memory on `listen` with `flags` and `env`.
  std::unique_ptr<ChildProcess> StartScheduler(const std::string& listen,
                                               std::vector<std::string> flags = {},
                                               const std::map<std::string, std::string>& env = {}) {
    std::vector<std::string> argv = {testing::BinaryPath("taskboard-scheduler"),
                                     "--memory",
                                     "--listen",
                                     listen,
                                     "--port-file",
                                     port_file_};
    argv.insert(argv.end(), flags.begin(), flags.end());
    absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Spawn(argv, log_, env);
    EXPECT_THAT(child.status(), IsOk());
    return child.ok() ? *std::move(child) : nullptr;
  }

  // The status of ListRuns on the scheduler's port over loopback, once it
  // has written its port file.
  grpc::Status ListRunsOnceServing(ChildProcess& scheduler, const std::string& token = "") {
    absl::StatusOr<int> port = WaitForPortFile(scheduler, port_file_, 30'000);
    if (!port.ok()) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          absl::StrCat(port.status().message(), "\n", ReadFileOrEmpty(log_)));
    }
    std::unique_ptr<v1::Scheduler::Stub> stub =
        v1::Scheduler::NewStub(TestChannel(absl::StrCat("127.0.0.1:", *port), token));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::ListRunsRequest request;
    v1::ListRunsResponse response;
    return stub->ListRuns(&context, request, &response);
  }

  testing::TempDir dir_;
  const std::string port_file_ = (dir_.path() / "scheduler.port").string();
  const std::string log_ = (dir_.path() / "scheduler.log").string();
};

TEST_F(ListenExposureTest, AllInterfacesWithoutTokens_ExitsTwoSayingWhatToPass) {
  std::unique_ptr<ChildProcess> scheduler = StartScheduler("0.0.0.0:0");
  ASSERT_NE(scheduler, nullptr);
  EXPECT_EQ(scheduler->WaitFor(30'000), 2) << ReadFileOrEmpty(log_);
  EXPECT_THAT(ReadFileOrEmpty(log_),
              AllOf(HasSubstr("taskboard-scheduler: --listen 0.0.0.0:0 is reachable"),
                    HasSubstr("--auth-tokens FILE"), HasSubstr("--insecure")));
}

TEST_F(ListenExposureTest, AllInterfacesInsecure_ServesAndLogsAWarning) {
  std::unique_ptr<ChildProcess> scheduler = StartScheduler("0.0.0.0:0", {"--insecure"});
  ASSERT_NE(scheduler, nullptr);
  grpc::Status listed = ListRunsOnceServing(*scheduler);
  EXPECT_TRUE(listed.ok()) << listed.error_message();
  EXPECT_THAT(ReadFileOrEmpty(log_), AllOf(HasSubstr(R"("level":"warn")"),
                                           HasSubstr("--insecure: serving without authentication"),
                                           HasSubstr(R"("listen":"0.0.0.0:0")")));
}

TEST_F(ListenExposureTest, AllInterfacesInsecureFromEnvironment_Serves) {
  std::unique_ptr<ChildProcess> scheduler =
      StartScheduler("0.0.0.0:0", {}, {{"TASKBOARD_INSECURE", "1"}});
  ASSERT_NE(scheduler, nullptr);
  grpc::Status listed = ListRunsOnceServing(*scheduler);
  EXPECT_TRUE(listed.ok()) << listed.error_message();
  EXPECT_THAT(ReadFileOrEmpty(log_), HasSubstr("--insecure: serving without authentication"));
}

TEST_F(ListenExposureTest, AllInterfacesWithTokens_ServesAuthenticatedWithoutWarning) {
  const std::string tokens = (dir_.path() / "tokens.yaml").string();
  std::ofstream(tokens) << "tokens:\n  - token: " << kClientToken
                        << "\n    name: alice\n    role: client\n    tenant: acme\n";
  std::unique_ptr<ChildProcess> scheduler = StartScheduler("0.0.0.0:0", {"--auth-tokens", tokens});
  ASSERT_NE(scheduler, nullptr);
  grpc::Status listed = ListRunsOnceServing(*scheduler, kClientToken);
  EXPECT_TRUE(listed.ok()) << listed.error_message();
  EXPECT_THAT(ReadFileOrEmpty(log_), Not(HasSubstr("--insecure")));
}

TEST_F(ListenExposureTest, LoopbackWithoutTokens_ServesWithoutWarning) {
  std::unique_ptr<ChildProcess> scheduler = StartScheduler("127.0.0.1:0");
  ASSERT_NE(scheduler, nullptr);
  grpc::Status listed = ListRunsOnceServing(*scheduler);
  EXPECT_TRUE(listed.ok()) << listed.error_message();
  EXPECT_THAT(ReadFileOrEmpty(log_), Not(HasSubstr("--insecure")));
}

}  // namespace
}  // namespace taskboard
