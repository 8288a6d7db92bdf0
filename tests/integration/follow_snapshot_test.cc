// The CLI's follower keeps its snapshot of a run current from WatchRun
// events instead of fetching the run again (tools/cli/run_snapshot.h). Against
// a real scheduler and worker: a GetRun answer taken right after submitting,
// plus every event after it, gives what GetRun answers once the run is over,
// for a board and for a taskflow whose two maps create their items
// interleaved (out of GetRun's order).

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"
#include "tools/cli/run_snapshot.h"

namespace taskboard {
namespace {

using testing::IsOk;

std::string Board(int count) {
  Json tasks = Json::array();
  for (int i = 0; i < count; ++i) {
    Json task = {{"id", absl::StrCat("t", i)}, {"agent", "noop"}, {"task", "x"}};
    if (i % 10 == 9) task["deps"] = Json::array({absl::StrCat("t", i - 1)});
    tasks.push_back(task);
  }
  return DumpJson({{"name", "follow-board"}, {"kind", "board"}, {"board", {{"tasks", tasks}}}});
}

std::string TwoMaps(int items) {
  Json over = Json::array();
  for (int i = 0; i < items; ++i) over.push_back(i);
  const auto map = [&](const std::string& id) {
    return Json{{"id", id},     {"type", "map"},    {"agent", "noop"},
                {"over", over}, {"concurrency", 8}, {"task", "x {item}"}};
  };
  return DumpJson({{"name", "follow-maps"},
                   {"phases", Json::array({map("a"),
                                           map("bb"),
                                           {{"id", "end"},
                                            {"agent", "noop"},
                                            {"dependsOn", Json::array({"a", "bb"})},
                                            {"task", "done"}}})}});
}

class FollowSnapshotTest : public testing::ClusterTest {
 protected:
  // Follows `flow` the way the CLI does and compares the result with GetRun:
  // from a whole GetRun answer, or (`without_tasks`) from one without tasks
  // that the replay from seq 0 completes, ending with the finished run
  // without tasks as the CLI does.
  void ExpectSnapshotMatchesGetRun(const std::string& flow, bool without_tasks = false) {
    absl::StatusOr<std::string> run_id = cluster_.Submit(flow);
    ASSERT_THAT(run_id.status(), IsOk()) << cluster_.Logs();
    absl::StatusOr<v1::Run> first = cluster_.GetRun(*run_id, without_tasks);
    ASSERT_THAT(first.status(), IsOk());
    cli::RunSnapshot snapshot;
    if (without_tasks) {
      ASSERT_THAT(first->tasks(), ::testing::IsEmpty());
      ASSERT_GT(first->tasks_total(), 0);
      snapshot.ResetWithoutTasks(*first);
    } else {
      snapshot.Reset(*first);
    }
    absl::StatusOr<std::vector<v1::RunEvent>> events = cluster_.WatchToEnd(*run_id);
    ASSERT_THAT(events.status(), IsOk());
    int applied = 0;
    for (const v1::RunEvent& event : *events) {
      const cli::RunSnapshot::Applied result = snapshot.Apply(event);
      ASSERT_NE(result, cli::RunSnapshot::Applied::kNeedsFetch) << event.DebugString();
      if (result == cli::RunSnapshot::Applied::kChanged) ++applied;
    }
    EXPECT_GT(applied, 0) << "the snapshot was taken before the run ran";
    absl::StatusOr<v1::Run> last = cluster_.GetRun(*run_id);
    ASSERT_THAT(last.status(), IsOk());
    ASSERT_EQ(last->status(), v1::RUN_STATUS_COMPLETED) << last->error();
    if (without_tasks) {
      absl::StatusOr<v1::Run> finished = cluster_.GetRun(*run_id, /*without_tasks=*/true);
      ASSERT_THAT(finished.status(), IsOk());
      EXPECT_EQ(finished->tasks_total(), last->tasks_total());
      EXPECT_EQ(finished->tasks_done(), last->tasks_done());
      ASSERT_TRUE(snapshot.RefreshWithoutTasks(*std::move(finished)));
      EXPECT_EQ(snapshot.run().billed().DebugString(), last->billed().DebugString());
    }

    google::protobuf::util::MessageDifferencer differ;
    // An empty usage is the same as none (the view shows neither).
    differ.set_message_field_comparison(google::protobuf::util::MessageDifferencer::EQUIVALENT);
    std::string diff;
    differ.ReportDifferencesToString(&diff);
    // Model calls raise no event (the CLI fetches the run at the end for
    // them), and a board's phases repeat its tasks unannounced.
    differ.IgnoreField(v1::Run::descriptor()->FindFieldByName("billed"));
    if (last->kind() == v1::FLOW_KIND_BOARD) {
      differ.IgnoreField(v1::Run::descriptor()->FindFieldByName("phases"));
    }
    EXPECT_TRUE(differ.Compare(*last, snapshot.run())) << diff;
  }
};

TEST_F(FollowSnapshotTest, Board_EventsGiveWhatGetRunGives) {
  ExpectSnapshotMatchesGetRun(Board(300));
}

TEST_F(FollowSnapshotTest, TaskflowWithInterleavedMaps_EventsGiveWhatGetRunGives) {
  ExpectSnapshotMatchesGetRun(TwoMaps(60));
}

TEST_F(FollowSnapshotTest, Board_FromGetRunWithoutTasks_ReplayGivesWhatGetRunGives) {
  ExpectSnapshotMatchesGetRun(Board(300), /*without_tasks=*/true);
}

TEST_F(FollowSnapshotTest, Taskflow_FromGetRunWithoutTasks_ReplayGivesWhatGetRunGives) {
  ExpectSnapshotMatchesGetRun(TwoMaps(60), /*without_tasks=*/true);
}

}  // namespace
}  // namespace taskboard
