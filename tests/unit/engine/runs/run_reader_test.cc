// The read side of runs (run_reader.h) over what an Engine committed:
// ReadRun, ListRuns, ReadTask and ReadEvents.

#include "scheduler/engine/runs/run_reader.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kChain[] = R"({"name": "chain", "phases": [
    {"id": "a", "agent": "coder", "task": "write"},
    {"id": "b", "agent": "coder", "task": "review: {steps.a.output}", "dependsOn": ["a"]}]})";

constexpr char kOther[] = R"({"name": "other", "phases": [
    {"id": "x", "agent": "coder", "task": "X"}]})";

std::vector<std::string> Ids(const v1::ListRunsResponse& response) {
  std::vector<std::string> ids;
  for (const v1::Run& run : response.runs()) ids.push_back(run.run_id());
  return ids;
}

// ---------------------------------------------------------------------------
// ReadRun

TEST(RunReader, ReadRun_ReturnsSpecPhasesAndTasks) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), true, "draft");

  absl::StatusOr<v1::Run> run = ReadRun(h.store(), run_id);
  ASSERT_THAT(run, IsOk());
  EXPECT_EQ(run->run_id(), run_id);
  EXPECT_EQ(run->flow_name(), "chain");
  EXPECT_EQ(run->kind(), v1::FLOW_KIND_TASKFLOW);
  EXPECT_EQ(run->status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(run->spec().name(), "chain");
  ASSERT_THAT(run->phases(), SizeIs(2));
  EXPECT_EQ(run->phases(0).phase_id(), "a");
  EXPECT_EQ(run->phases(0).state(), v1::TASK_STATE_COMPLETED);
  EXPECT_EQ(run->phases(1).state(), v1::TASK_STATE_RUNNING);
  ASSERT_THAT(run->tasks(), SizeIs(2));
  EXPECT_EQ(run->tasks(0).task_id(), "a");
  EXPECT_EQ(run->tasks(0).output(), "draft");
  EXPECT_EQ(run->tasks(1).task_id(), "b");
  EXPECT_EQ(run->tasks_total(), 2);
  EXPECT_EQ(run->tasks_done(), 1);
  EXPECT_GT(run->last_seq(), 0);
}

TEST(RunReader, ReadRun_WithoutTasks_KeepsCounts) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  absl::StatusOr<v1::Run> run = ReadRun(h.store(), run_id, /*with_tasks=*/false);
  ASSERT_THAT(run, IsOk());
  EXPECT_THAT(run->tasks(), IsEmpty());
  EXPECT_EQ(run->tasks_total(), 1);
  EXPECT_EQ(run->tasks_done(), 0);
}

// GetRun's without_tasks: a board's phases (one per task) are left out with
// its tasks; the counts and the spec stay, and agree with the whole read.
TEST(RunReader, ReadRun_BoardWithoutTasks_LeavesOutPhasesKeepsCountsAndSpec) {
  EngineHarness h;
  std::string run_id = h.Submit(R"({"name": "b", "kind": "board", "board": {"tasks": [
      {"id": "a", "agent": "coder", "task": "one"},
      {"id": "b", "agent": "coder", "task": "two"}]}})");
  TestWorker w = h.Connect("w1", {"coder"});
  h.Result(w, h.OnlyAssignment(w), true, "done");

  absl::StatusOr<v1::Run> whole = ReadRun(h.store(), run_id);
  absl::StatusOr<v1::Run> run = ReadRun(h.store(), run_id, /*with_tasks=*/false);
  ASSERT_THAT(whole, IsOk());
  ASSERT_THAT(run, IsOk());
  EXPECT_THAT(whole->phases(), SizeIs(2));
  EXPECT_THAT(run->tasks(), IsEmpty());
  EXPECT_THAT(run->phases(), IsEmpty());
  EXPECT_EQ(run->tasks_total(), 2);
  EXPECT_EQ(run->tasks_done(), 1);
  EXPECT_EQ(run->tasks_done(), whole->tasks_done());
  EXPECT_EQ(run->last_seq(), whole->last_seq());
  EXPECT_EQ(run->spec().board().tasks_size(), 2);
}

TEST(RunReader, ReadRun_Unknown_NotFoundSaysHowToList) {
  EngineHarness h;
  EXPECT_THAT(ReadRun(h.store(), "run-nope"),
              StatusIs(absl::StatusCode::kNotFound,
                       "run run-nope not found; list runs with `taskboard runs`"));
}

// ---------------------------------------------------------------------------
// ListRuns

class ListRunsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    first_ = h_.Submit(kChain);
    h_.Advance(1'000);
    second_ = h_.Submit(kOther);
    h_.Advance(1'000);
    third_ = h_.Submit(kChain);
    ASSERT_THAT(h_.Cancel(second_), IsOk());
  }

  absl::StatusOr<v1::ListRunsResponse> List(const v1::ListRunsRequest& request) {
    return ListRuns(h_.store(), request);
  }

  EngineHarness h_;
  std::string first_, second_, third_;
};

TEST_F(ListRunsTest, NewestFirstWithoutTasks) {
  absl::StatusOr<v1::ListRunsResponse> listed = List(v1::ListRunsRequest());
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(Ids(*listed), ElementsAre(third_, second_, first_));
  EXPECT_EQ(listed->next_page_token(), "");
  for (const v1::Run& run : listed->runs()) {
    EXPECT_THAT(run.tasks(), IsEmpty());
    EXPECT_THAT(run.phases(), ::testing::Not(IsEmpty()));
  }
}

TEST_F(ListRunsTest, StatusFilter) {
  v1::ListRunsRequest request;
  request.add_statuses(v1::RUN_STATUS_CANCELLED);
  absl::StatusOr<v1::ListRunsResponse> cancelled = List(request);
  ASSERT_THAT(cancelled, IsOk());
  EXPECT_THAT(Ids(*cancelled), ElementsAre(second_));

  request.add_statuses(v1::RUN_STATUS_RUNNING);
  absl::StatusOr<v1::ListRunsResponse> either = List(request);
  ASSERT_THAT(either, IsOk());
  EXPECT_THAT(Ids(*either), ElementsAre(third_, second_, first_));
}

TEST_F(ListRunsTest, FlowNameFilter) {
  v1::ListRunsRequest request;
  request.set_flow_name("chain");
  absl::StatusOr<v1::ListRunsResponse> listed = List(request);
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(Ids(*listed), ElementsAre(third_, first_));
}

TEST_F(ListRunsTest, Paging_TokenContinuesWhereThePageEnded) {
  v1::ListRunsRequest request;
  request.set_page_size(2);
  absl::StatusOr<v1::ListRunsResponse> page1 = List(request);
  ASSERT_THAT(page1, IsOk());
  EXPECT_THAT(Ids(*page1), ElementsAre(third_, second_));
  ASSERT_EQ(page1->next_page_token(), second_);

  request.set_page_token(page1->next_page_token());
  absl::StatusOr<v1::ListRunsResponse> page2 = List(request);
  ASSERT_THAT(page2, IsOk());
  EXPECT_THAT(Ids(*page2), ElementsAre(first_));
  EXPECT_EQ(page2->next_page_token(), "");
}

TEST_F(ListRunsTest, Paging_WithFilter_CountsOnlyMatches) {
  v1::ListRunsRequest request;
  request.set_flow_name("chain");
  request.set_page_size(1);
  absl::StatusOr<v1::ListRunsResponse> page1 = List(request);
  ASSERT_THAT(page1, IsOk());
  EXPECT_THAT(Ids(*page1), ElementsAre(third_));
  request.set_page_token(page1->next_page_token());
  absl::StatusOr<v1::ListRunsResponse> page2 = List(request);
  ASSERT_THAT(page2, IsOk());
  EXPECT_THAT(Ids(*page2), ElementsAre(first_));
  EXPECT_EQ(page2->next_page_token(), "");
}

TEST_F(ListRunsTest, PageSizeOutOfRange_InvalidArgument) {
  v1::ListRunsRequest request;
  request.set_page_size(100'000);
  EXPECT_THAT(List(request), StatusIs(absl::StatusCode::kInvalidArgument));
  request.set_page_size(-1);
  EXPECT_THAT(List(request), StatusIs(absl::StatusCode::kInvalidArgument));
}

// ---------------------------------------------------------------------------
// ReadTask

TEST(RunReader, ReadTask_ReturnsTaskAndPrompt) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), true, "draft");
  absl::StatusOr<v1::GetTaskResponse> task = ReadTask(h.store(), run_id, "b");
  ASSERT_THAT(task, IsOk());
  EXPECT_EQ(task->task().task_id(), "b");
  EXPECT_EQ(task->task().state(), v1::TASK_STATE_DISPATCHED);
  EXPECT_EQ(task->execution().prompt(), "review: draft");
}

TEST(RunReader, ReadTask_UnknownTaskOrRun_NotFound) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  EXPECT_THAT(ReadTask(h.store(), run_id, "zz"),
              StatusIs(absl::StatusCode::kNotFound, "run " + run_id +
                                                        " has no task 'zz'; `taskboard show " +
                                                        run_id + "` lists its tasks"));
  EXPECT_THAT(
      ReadTask(h.store(), "run-nope", "a"),
      StatusIs(absl::StatusCode::kNotFound, ::testing::HasSubstr("run run-nope not found")));
}

// ---------------------------------------------------------------------------
// ReadEvents

TEST(RunReader, ReadEvents_AfterSeqAndEarlyStop) {
  EngineHarness h;
  std::string run_id = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  h.Finish(w, h.OnlyAssignment(w), true, "draft");
  std::vector<v1::RunEvent> all = h.Events(run_id);
  ASSERT_GE(all.size(), 4u);

  std::vector<int64_t> seqs;
  ASSERT_THAT(ReadEvents(h.store(), run_id, 2,
                         [&](v1::RunEvent& event) {
                           seqs.push_back(event.seq());
                           return seqs.size() < 2;
                         }),
              IsOk());
  EXPECT_THAT(seqs, ElementsAre(3, 4));

  std::vector<v1::RunEvent> none = h.Events(run_id, all.back().seq());
  EXPECT_THAT(none, IsEmpty());
}

TEST(RunReader, ReadEvents_OtherRunsEventsNotIncluded) {
  EngineHarness h;
  std::string one = h.Submit(kChain);
  std::string two = h.Submit(kOther);
  for (const v1::RunEvent& event : h.Events(one)) EXPECT_EQ(event.run_id(), one);
  for (const v1::RunEvent& event : h.Events(two)) EXPECT_EQ(event.run_id(), two);
}

}  // namespace
}  // namespace taskboard::engine
