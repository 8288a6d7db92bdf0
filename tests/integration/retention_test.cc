// --retention on a real scheduler: a finished run is gone (GetRun NOT_FOUND,
// not listed) once the retention has passed, while a run still going is
// untouched; a retention that is not a duration stops the scheduler at
// start with the accepted forms.

#include <string>

#include "absl/time/clock.h"
#include "common/child_process.h"
#include "common/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using testing::ClusterOptions;
using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::IsOk;

ClusterOptions ShortRetention() {
  ClusterOptions options;
  options.workers = 1;
  options.scheduler_flags = {"--retention", "2s"};
  return options;
}

grpc::StatusCode GetRunCode(testing::Cluster& cluster, const std::string& run_id) {
  grpc::ClientContext context;
  v1::GetRunRequest request;
  request.set_run_id(run_id);
  v1::GetRunResponse response;
  return cluster.client().GetRun(&context, request, &response).error_code();
}

class RetentionTest : public testing::ClusterTest {
 protected:
  RetentionTest() : ClusterTest(ShortRetention()) {}
};

TEST_F(RetentionTest, FinishedRun_GoneAfterTheRetention_RunningOneKept) {
  const v1::Run done = Run(R"({"name": "short-lived", "phases": [
      {"id": "a", "agent": "echo", "task": "echo kept for 2 s"}]})");
  ASSERT_EQ(done.status(), v1::RUN_STATUS_COMPLETED) << done.error() << cluster_.Logs();
  absl::StatusOr<std::string> going = cluster_.Submit(R"({"name": "long", "phases": [
      {"id": "a", "agent": "echo", "task": "sleep 30 late"}]})");
  ASSERT_THAT(going.status(), IsOk());

  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (GetRunCode(cluster_, done.run_id()) != grpc::StatusCode::NOT_FOUND &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_EQ(GetRunCode(cluster_, done.run_id()), grpc::StatusCode::NOT_FOUND) << cluster_.Logs();
  grpc::ClientContext context;
  v1::ListRunsResponse listed;
  ASSERT_TRUE(cluster_.client().ListRuns(&context, {}, &listed).ok());
  ASSERT_EQ(listed.runs_size(), 1);
  EXPECT_EQ(listed.runs(0).run_id(), *going);
  EXPECT_EQ(GetRunCode(cluster_, *going), grpc::StatusCode::OK);
}

TEST(RetentionFlag, NotADuration_SchedulerExits2NamingTheForms) {
  testing::TempDir dir;
  const std::string log = (dir.path() / "scheduler.log").string();
  absl::StatusOr<std::unique_ptr<ChildProcess>> scheduler = ChildProcess::Spawn(
      {testing::BinaryPath("taskboard-scheduler"), "--memory", "--listen", "127.0.0.1:0",
       "--retention", "thirty days"},
      log);
  ASSERT_THAT(scheduler.status(), IsOk());
  EXPECT_EQ((*scheduler)->WaitFor(30'000), 2) << ReadFileOrEmpty(log);
  EXPECT_THAT(ReadFileOrEmpty(log),
              AllOf(HasSubstr("--retention"), HasSubstr("'thirty days' is not a duration"),
                    HasSubstr("30d")));
}

}  // namespace
}  // namespace taskboard
