// SubmitRun replies once the run is written and creates its tasks in the
// scheduler's next batch (decision 121); a client that reads the run right
// after the reply still sees every task, because GetRun and GetTask wait
// for that batch. Against a real scheduler, with a board large enough that
// creating its tasks takes the scheduler several milliseconds.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using testing::IsOk;

constexpr int kTasks = 3'000;

std::string Board(int count) {
  Json tasks = Json::array();
  for (int i = 0; i < count; ++i) {
    tasks.push_back({{"id", absl::StrCat("t", i)}, {"agent", "noop"}, {"task", "x"}});
  }
  return DumpJson({{"name", "large"}, {"kind", "board"}, {"board", {{"tasks", tasks}}}});
}

class SubmitReplyTest : public testing::ClusterTest {};

TEST_F(SubmitReplyTest, ReadRightAfterTheReply_EveryTaskIsThere) {
  const std::string flow = Board(kTasks);
  std::vector<std::string> runs;
  for (int attempt = 0; attempt < 3; ++attempt) {
    absl::StatusOr<std::string> run_id = cluster_.Submit(flow);
    ASSERT_THAT(run_id.status(), IsOk()) << cluster_.Logs();
    runs.push_back(*run_id);

    grpc::ClientContext context;
    v1::GetRunRequest get;
    get.set_run_id(*run_id);
    v1::GetRunResponse response;
    grpc::Status status = cluster_.client().GetRun(&context, get, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.run().tasks_size(), kTasks) << "submit " << attempt;
    EXPECT_EQ(response.run().tasks_total(), kTasks) << "submit " << attempt;

    absl::StatusOr<std::string> next = cluster_.Submit(flow);
    ASSERT_THAT(next.status(), IsOk()) << cluster_.Logs();
    runs.push_back(*next);
    grpc::ClientContext task_context;
    v1::GetTaskRequest task;
    task.set_run_id(*next);
    task.set_task_id(absl::StrCat("t", kTasks - 1));
    v1::GetTaskResponse found;
    status = cluster_.client().GetTask(&task_context, task, &found);
    EXPECT_TRUE(status.ok()) << "submit " << attempt << ": " << status.error_message();
  }
  for (const std::string& run_id : runs) {
    absl::StatusOr<v1::Run> run = cluster_.WaitForRun(run_id);
    ASSERT_THAT(run.status(), IsOk());
    EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error();
  }
}

}  // namespace
}  // namespace taskboard
