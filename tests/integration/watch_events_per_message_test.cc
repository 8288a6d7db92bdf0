// WatchRun's max_events_per_message: unset, every response carries one
// event in `event`; set, responses carry bursts in `events` (at most the
// number asked for, capped at 1,000), every seq exactly once and in order,
// ending with run_finished, and `event` is never set. Against a real
// scheduler and workers, for a finished run (replay) and a live one. A
// small live write may be held a few milliseconds for more events
// (WatchLinger): held events still go out when no more come, and a watcher
// that cancels while they are held ends at once.

#include <chrono>
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

using testing::IsOk;

// Enough tasks for more events than one response may carry (about two per
// task: a board's tasks are announced together in tasks_created).
constexpr int kTasks = 700;

std::string Board(int count) {
  Json tasks = Json::array();
  for (int i = 0; i < count; ++i) {
    tasks.push_back({{"id", absl::StrCat("t", i)}, {"agent", "noop"}, {"task", "x"}});
  }
  return DumpJson({{"name", "bursts"}, {"kind", "board"}, {"board", {{"tasks", tasks}}}});
}

class WatchEventsPerMessageTest : public testing::ClusterTest {
 protected:
  // Every response of a WatchRun from seq 0 to the end of the stream.
  absl::StatusOr<std::vector<v1::WatchRunResponse>> Watch(const std::string& run_id,
                                                          int max_events_per_message) {
    v1::WatchRunRequest request;
    request.set_run_id(run_id);
    request.set_max_events_per_message(max_events_per_message);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    auto reader = cluster_.client().WatchRun(&context, request);
    std::vector<v1::WatchRunResponse> responses;
    v1::WatchRunResponse response;
    while (reader->Read(&response)) responses.push_back(response);
    grpc::Status status = reader->Finish();
    if (!status.ok()) {
      return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                          absl::StrCat(status.error_message(), "\n", cluster_.Logs()));
    }
    return responses;
  }

  std::string FinishedRun() {
    absl::StatusOr<std::string> run_id = cluster_.Submit(Board(kTasks));
    EXPECT_THAT(run_id.status(), IsOk()) << cluster_.Logs();
    if (!run_id.ok()) return "";
    absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
    EXPECT_THAT(run.status(), IsOk());
    return *run_id;
  }

  // The events of bursts, in the order received; every response must hold
  // `events` (between 1 and `most`) and no `event`.
  static std::vector<v1::RunEvent> Unbatch(const std::vector<v1::WatchRunResponse>& responses,
                                           int most) {
    std::vector<v1::RunEvent> events;
    for (size_t i = 0; i < responses.size(); ++i) {
      const v1::WatchRunResponse& response = responses[i];
      EXPECT_FALSE(response.has_event()) << "response " << i;
      EXPECT_GE(response.events_size(), 1) << "response " << i;
      EXPECT_LE(response.events_size(), most) << "response " << i;
      events.insert(events.end(), response.events().begin(), response.events().end());
    }
    return events;
  }
};

TEST_F(WatchEventsPerMessageTest, Unset_OneEventPerResponseInEvent) {
  const std::string run_id = FinishedRun();
  absl::StatusOr<std::vector<v1::WatchRunResponse>> responses = Watch(run_id, 0);
  ASSERT_THAT(responses.status(), IsOk());
  std::vector<v1::RunEvent> events;
  for (const v1::WatchRunResponse& response : *responses) {
    EXPECT_TRUE(response.has_event());
    EXPECT_EQ(response.events_size(), 0);
    events.push_back(response.event());
  }
  testing::ExpectCleanEventLog(events, kTasks);
}

TEST_F(WatchEventsPerMessageTest, One_SameAsUnset) {
  const std::string run_id = FinishedRun();
  absl::StatusOr<std::vector<v1::WatchRunResponse>> responses = Watch(run_id, 1);
  ASSERT_THAT(responses.status(), IsOk());
  ASSERT_FALSE(responses->empty());
  for (const v1::WatchRunResponse& response : *responses) {
    EXPECT_TRUE(response.has_event());
    EXPECT_EQ(response.events_size(), 0);
  }
}

TEST_F(WatchEventsPerMessageTest, Set_FinishedRun_BurstsInSeqOrderEndingWithRunFinished) {
  const std::string run_id = FinishedRun();
  absl::StatusOr<std::vector<v1::WatchRunResponse>> responses = Watch(run_id, 1000);
  ASSERT_THAT(responses.status(), IsOk());
  std::vector<v1::RunEvent> events = Unbatch(*responses, 1000);
  testing::ExpectCleanEventLog(events, kTasks);
  // The replay reads stored events a page at a time: far fewer responses
  // than events.
  EXPECT_LT(responses->size(), events.size() / 10)
      << responses->size() << " responses for " << events.size() << " events";
}

TEST_F(WatchEventsPerMessageTest, Set_LiveRun_EveryEventOnceInSeqOrder) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(Board(kTasks));
  ASSERT_THAT(run_id.status(), IsOk()) << cluster_.Logs();
  // Follows the run from its start while it runs.
  absl::StatusOr<std::vector<v1::WatchRunResponse>> responses = Watch(*run_id, 1000);
  ASSERT_THAT(responses.status(), IsOk());
  std::vector<v1::RunEvent> events = Unbatch(*responses, 1000);
  ASSERT_FALSE(events.empty());
  testing::ExpectCleanEventLog(events, kTasks);
  EXPECT_EQ(events.back().run_finished().status(), v1::RUN_STATUS_COMPLETED);
}

TEST_F(WatchEventsPerMessageTest, Set_LoneLiveEvents_ArriveWhileTheRunWaits) {
  // One task that sleeps for a minute: once it runs, the run publishes
  // nothing more, so its last event (the task running) goes out only if a
  // held write is sent at the end of the hold.
  absl::StatusOr<std::string> run_id = cluster_.Submit(
      R"({"name": "waits", "phases": [{"id": "a", "agent": "echo", "task": "sleep 60 late"}]})");
  ASSERT_THAT(run_id.status(), IsOk()) << cluster_.Logs();
  v1::WatchRunRequest request;
  request.set_run_id(*run_id);
  request.set_max_events_per_message(1000);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  auto reader = cluster_.client().WatchRun(&context, request);
  bool started = false;
  v1::WatchRunResponse response;
  while (!started && reader->Read(&response)) {
    for (const v1::RunEvent& event : response.events()) {
      ASSERT_FALSE(event.has_run_finished()) << "the task sleeps for a minute";
      const v1::TaskState state = event.task_change().task().state();
      started = started || state == v1::TASK_STATE_RUNNING;
    }
  }
  ASSERT_TRUE(started) << reader->Finish().error_message() << "\n" << cluster_.Logs();
  // Cancelled by the watcher: the stream ends at once, whatever it holds.
  context.TryCancel();
  while (reader->Read(&response)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  v1::CancelRunRequest cancel;
  cancel.set_run_id(*run_id);
  v1::CancelRunResponse cancelled;
  grpc::ClientContext cancel_context;
  EXPECT_TRUE(cluster_.client().CancelRun(&cancel_context, cancel, &cancelled).ok());
  ExpectStillServing();
}

TEST_F(WatchEventsPerMessageTest, OverTheCap_AtMost1000EventsPerResponse) {
  const std::string run_id = FinishedRun();
  absl::StatusOr<std::vector<v1::WatchRunResponse>> responses = Watch(run_id, 1'000'000);
  ASSERT_THAT(responses.status(), IsOk());
  std::vector<v1::RunEvent> events = Unbatch(*responses, 1000);
  ASSERT_GT(events.size(), 1000u) << "the run must have more events than one response may carry";
  testing::ExpectCleanEventLog(events, kTasks);
}

TEST_F(WatchEventsPerMessageTest, Small_AtMostThatManyPerResponse) {
  const std::string run_id = FinishedRun();
  absl::StatusOr<std::vector<v1::WatchRunResponse>> responses = Watch(run_id, 7);
  ASSERT_THAT(responses.status(), IsOk());
  std::vector<v1::RunEvent> events = Unbatch(*responses, 7);
  testing::ExpectCleanEventLog(events, kTasks);
}

}  // namespace
}  // namespace taskboard
