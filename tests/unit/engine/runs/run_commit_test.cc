#include "scheduler/engine/runs/run_commit.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/state/run_finish.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/store/keys.h"
#include "tests/unit/engine/runs/runs_fixture.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::RunsFixture;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kThree[] = R"({"name": "three", "phases": [
    {"id": "b", "agent": "coder", "task": "B"},
    {"id": "a10", "agent": "coder", "task": "A"},
    {"id": "a9", "agent": "coder", "task": "A"}]})";

std::vector<std::string> EventKinds(const std::vector<v1::RunEvent>& events) {
  std::vector<std::string> kinds;
  for (const v1::RunEvent& event : events) {
    kinds.push_back(event.has_run_started()     ? "run_started"
                    : event.has_tasks_created() ? "tasks_created"
                    : event.has_task_change()   ? "task_change"
                    : event.has_run_finished()  ? "run_finished"
                    : event.has_phase_change()  ? "phase_change"
                                                : "other");
  }
  return kinds;
}

TEST(CommitTouchedRuns, Events_EmittedThenCreatedThenChangedThenFinished_NumberedInOrder) {
  RunsFixture f;
  const std::string run_id = f.Start(kThree);
  RunState& run = *f.runs().active().Find(run_id)->state;
  MarkDispatched(run.MutableTask("b"), "lease-b", "w1", RunsFixture::kStartMs);
  FinishRun(run, v1::RUN_STATUS_FAILED, "", "stopped", RunsFixture::kStartMs);
  f.batch().Touch(run_id);

  CommittedRuns committed = f.Commit();
  ASSERT_EQ(committed.published.size(), 1u);
  const std::vector<v1::RunEvent>& events = committed.published[0].second;
  EXPECT_THAT(EventKinds(events), ElementsAre("task_change", "run_finished"));
  for (size_t i = 1; i < events.size(); ++i) EXPECT_EQ(events[i].seq(), events[i - 1].seq() + 1);
  EXPECT_THAT(committed.finished, ElementsAre(run_id));
  EXPECT_THAT(f.observer().ended, ElementsAre(run_id));
}

TEST(CommitTouchedRuns, StartedRun_TasksAnnouncedInTasksCreated_InKeyOrder) {
  RunsFixture f;
  std::string run_id;
  f.Submit(kThree, "", [&](absl::StatusOr<SubmitResult> r) { run_id = r->run_id; });
  CommittedRuns submitted = f.Commit();
  ASSERT_EQ(submitted.published.size(), 1u);
  EXPECT_THAT(EventKinds(submitted.published[0].second), ElementsAre("run_started"));

  f.runs().starting().StartPending();
  CommittedRuns started = f.Commit();
  ASSERT_EQ(started.published.size(), 1u);
  const std::vector<v1::RunEvent>& events = started.published[0].second;
  // What the driver emitted (its phases starting) comes before the tasks.
  ASSERT_THAT(EventKinds(events),
              ElementsAre("phase_change", "phase_change", "phase_change", "tasks_created"));
  std::vector<std::string> ids;
  for (const v1::Task& task : events[3].tasks_created().tasks()) ids.push_back(task.task_id());
  // Key order (store::keys::TaskKeyLess: shorter ids first, then bytewise),
  // not id order, and not the order the flow declares them in.
  EXPECT_THAT(ids, ElementsAre("b", "a9", "a10"));
  EXPECT_TRUE(f.store().Get(store::Column::kTasks, store::keys::Task(run_id, "a9"))->has_value());
}

TEST(CommitTouchedRuns, RunReadButNotChanged_WritesNothing) {
  RunsFixture f;
  const std::string run_id = f.Start(kThree);
  f.runs().active().Find(run_id)->state->FindTask("a9");
  f.batch().Touch(run_id);
  CommittedRuns committed = f.Commit();
  EXPECT_THAT(committed.published, IsEmpty());
  EXPECT_TRUE(f.batch().writes().empty());
}

TEST(CommitTouchedRuns, FinishedRootRun_IndexedForRetention) {
  RunsFixture f;
  const std::string run_id = f.Start(kThree);
  FinishRun(*f.runs().active().Find(run_id)->state, v1::RUN_STATUS_CANCELLED, "", "",
            RunsFixture::kStartMs + 5);
  f.batch().Touch(run_id);
  f.Commit();
  EXPECT_TRUE(
      f.store()
          .Get(store::Column::kMeta, store::keys::FinishedRun(RunsFixture::kStartMs + 5, run_id))
          ->has_value());
  EXPECT_THAT(f.observer().approvals, IsEmpty());
}

}  // namespace
}  // namespace taskboard::engine
