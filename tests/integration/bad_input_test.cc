// What users get wrong, end to end: an agent no worker offers, outputs and
// flows over the size limits. Each ends in a clear error, nothing half-stored.

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::Cluster;
using testing::ClusterOptions;
using testing::IsOk;
using testing::StatusIs;

ClusterOptions SmallLimits() {
  ClusterOptions options;
  options.workers = 1;
  options.scheduling_timeout_ms = 1'000;
  options.scheduler_flags = {"--max-output-bytes", "2000", "--max-spec-bytes", "4000"};
  return options;
}

class BadInputTest : public testing::ClusterTest {
 protected:
  BadInputTest() : ClusterTest(SmallLimits()) {}
};

TEST_F(BadInputTest, UnknownAgent_FailsAfterTheSchedulingTimeoutListingAvailableAgents) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(R"(
name: typo
phases:
  - id: a
    agent: ecoh
    task: "echo hi"
)");
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(run->error(), HasSubstr("no worker offers agent 'ecoh'"));
  EXPECT_THAT(run->error(), HasSubstr("available: echo, helper, noop"));
}

TEST_F(BadInputTest, OversizedOutput_FailsTheTaskNamingTheLimit) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(R"(
name: chatty
phases:
  - id: a
    agent: echo
    task: "list 300"
)");
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(run->error(), HasSubstr("over the scheduler's limit of 2000 bytes"));
  EXPECT_THAT(run->error(), HasSubstr("--max-output-bytes"));
}

TEST_F(BadInputTest, OversizedFlow_IsRejectedBeforeParsing) {
  std::string flow = absl::StrCat("name: huge\nphases:\n  - id: a\n    agent: echo\n    task: \"",
                                  std::string(5000, 'x'), "\"\n");
  absl::StatusOr<std::string> run_id = cluster_.Submit(flow);
  EXPECT_THAT(run_id.status(), StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_THAT(std::string(run_id.status().message()), HasSubstr("--max-spec-bytes"));
}

TEST_F(BadInputTest, UnknownRun_IsNotFoundWithAHint) {
  v1::GetRunRequest request;
  request.set_run_id("run-NOPE");
  v1::GetRunResponse response;
  grpc::ClientContext context;
  grpc::Status status = cluster_.client().GetRun(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("taskboard runs"));
}

}  // namespace
}  // namespace taskboard
