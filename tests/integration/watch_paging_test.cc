// WatchRun never fails for size: a run with more than 100,000 events (a
// 40,000-task board) replays in pages from the store, every seq exactly
// once and each task completed once, both for a watcher that follows it
// live from the start and for one that arrives after it finished (which
// once ended with RESOURCE_EXHAUSTED: the whole replay was queued at once).

#include <future>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/chaos_helpers.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using testing::ClusterOptions;
using testing::IsOk;

// About two events per task (dispatch and result; a board's tasks are
// announced together in a few tasks_created events), so more than a
// watcher may queue.
constexpr int kTasks = 60'000;

ClusterOptions BigBoards() {
  ClusterOptions options;
  options.workers = 2;
  options.slots = 16;
  options.scheduler_flags = {"--max-tasks-per-run", absl::StrCat(kTasks), "--max-spec-bytes",
                             absl::StrCat(16 << 20)};
  return options;
}

std::string Board(int count) {
  Json tasks = Json::array();
  for (int i = 0; i < count; ++i) {
    tasks.push_back({{"id", absl::StrCat("t", i)}, {"agent", "noop"}, {"task", "x"}});
  }
  return DumpJson({{"name", "many-events"}, {"kind", "board"}, {"board", {{"tasks", tasks}}}});
}

class WatchPagingTest : public testing::ClusterTest {
 protected:
  WatchPagingTest() : ClusterTest(BigBoards()) {}
};

TEST_F(WatchPagingTest, RunWithOver100000Events_ReplaysWholeLiveAndAfterTheEnd) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(Board(kTasks));
  ASSERT_THAT(run_id.status(), IsOk()) << cluster_.Logs();
  std::future<absl::StatusOr<std::vector<v1::RunEvent>>> live =
      std::async(std::launch::async, [&] { return cluster_.WatchToEnd(*run_id, 240'000); });

  // (GetRun of 40,000 tasks is past a client's default 4 MiB message
  // limit: the run's end is read from its events.)
  absl::StatusOr<std::vector<v1::RunEvent>> followed = live.get();
  ASSERT_THAT(followed.status(), IsOk());
  ASSERT_GT(followed->size(), 100'000u) << "the run must have more events than a watcher may queue";
  testing::ExpectCleanEventLog(*followed, kTasks);
  EXPECT_EQ(followed->back().run_finished().status(), v1::RUN_STATUS_COMPLETED)
      << followed->back().DebugString();

  absl::StatusOr<std::vector<v1::RunEvent>> replayed = cluster_.WatchToEnd(*run_id, 240'000);
  ASSERT_THAT(replayed.status(), IsOk());
  ASSERT_EQ(replayed->size(), followed->size());
  testing::ExpectCleanEventLog(*replayed, kTasks);
}

}  // namespace
}  // namespace taskboard
