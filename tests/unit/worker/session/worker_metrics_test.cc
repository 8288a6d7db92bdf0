// The worker's metrics (worker/session/worker_metrics.h): each hook moves the
// right series, and the session and the tool caller call the hooks. Series
// are read back the way Prometheus sees them: Registry::Collect, then the
// text format.

#include "worker/session/worker_metrics.h"

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/metrics/registry.h"
#include "common/metrics/text_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/prometheus_text.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/worker/session/fake_llm_grant_link.h"
#include "tests/unit/worker/session/fake_tool_link.h"
#include "tests/unit/worker/session/session_harness.h"
#include "tests/unit/worker/tools/test_tools.h"
#include "worker/session/llm_grants.h"
#include "worker/session/tool_caller.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::taskboard::worker::testing::CountingTool;
using ::taskboard::worker::testing::FakeLlmGrantLink;
using ::taskboard::worker::testing::FakeStream;
using ::taskboard::worker::testing::FakeToolLink;
using ::taskboard::worker::testing::SessionHarness;
using ::testing::HasSubstr;
using ::testing::Optional;

std::string Exposition(const metrics::Registry& registry) {
  return metrics::SerializeTextFormat(registry.Collect());
}

// The value of the sample written exactly as `series` (name and labels, in
// the exposition's label order), or nullopt when there is none.
std::optional<double> Sample(const metrics::Registry& registry, const std::string& series) {
  return taskboard::testing::SampleValue(Exposition(registry), series);
}

class WorkerMetricsTest : public ::testing::Test {
 protected:
  metrics::Registry registry_;
  WorkerMetrics metrics_{registry_};
};

TEST_F(WorkerMetricsTest, New_ExposesSlotsConnectionAndReconnectsOnly) {
  metrics_.SetSlots(0, 4);
  EXPECT_THAT(Sample(registry_, R"(taskboard_worker_slots{state="busy"})"), Optional(0));
  EXPECT_THAT(Sample(registry_, R"(taskboard_worker_slots{state="free"})"), Optional(4));
  EXPECT_THAT(Sample(registry_, "taskboard_worker_connected"), Optional(0));
  EXPECT_THAT(Sample(registry_, "taskboard_worker_reconnects_total"), Optional(0));
  // Families without children are left out until an agent or tool shows up.
  EXPECT_FALSE(absl::StrContains(Exposition(registry_), "taskboard_worker_tasks_total"));
  EXPECT_FALSE(absl::StrContains(Exposition(registry_), "taskboard_worker_tool_calls_total"));
}

TEST_F(WorkerMetricsTest, TaskFinished_CountsOutcomeAndObservesDuration) {
  metrics_.TaskFinished("shell", TaskOutcome::kSucceeded, absl::Milliseconds(300));
  metrics_.TaskFinished("shell", TaskOutcome::kSucceeded, absl::Seconds(2));
  metrics_.TaskFinished("shell", TaskOutcome::kReturned, absl::Seconds(1));
  EXPECT_THAT(
      Sample(registry_, R"(taskboard_worker_tasks_total{agent="shell",outcome="succeeded"})"),
      Optional(2));
  EXPECT_THAT(
      Sample(registry_, R"(taskboard_worker_tasks_total{agent="shell",outcome="returned"})"),
      Optional(1));
  // Every outcome of a seen agent exists from its first task, at 0.
  EXPECT_THAT(Sample(registry_, R"(taskboard_worker_tasks_total{agent="shell",outcome="failed"})"),
              Optional(0));
  EXPECT_THAT(
      Sample(registry_, R"(taskboard_worker_tasks_total{agent="shell",outcome="cancelled"})"),
      Optional(0));
  EXPECT_THAT(Sample(registry_, R"(taskboard_worker_task_duration_seconds_count{agent="shell"})"),
              Optional(3));
  EXPECT_THAT(Sample(registry_, R"(taskboard_worker_task_duration_seconds_sum{agent="shell"})"),
              Optional(::testing::DoubleNear(3.3, 1e-9)));
  EXPECT_THAT(Sample(registry_,
                     R"(taskboard_worker_task_duration_seconds_bucket{agent="shell",le="0.32"})"),
              Optional(1));
}

TEST_F(WorkerMetricsTest, LlmUsage_AddsPromptAndCompletionTokensAndCost) {
  metrics_.LlmUsage("writer", 1200, 300, 0.015);
  metrics_.LlmUsage("writer", 800, 100, 0.005);
  EXPECT_THAT(
      Sample(registry_, R"(taskboard_worker_llm_tokens_total{agent="writer",kind="prompt"})"),
      Optional(2000));
  EXPECT_THAT(
      Sample(registry_, R"(taskboard_worker_llm_tokens_total{agent="writer",kind="completion"})"),
      Optional(400));
  EXPECT_THAT(Sample(registry_, R"(taskboard_worker_llm_cost_usd_total{agent="writer"})"),
              Optional(::testing::DoubleNear(0.02, 1e-12)));
}

TEST_F(WorkerMetricsTest, ToolCallFinished_CachedCallsHaveNoDuration) {
  metrics_.ToolCallFinished("read_file", /*cached=*/true, /*ok=*/true, std::nullopt);
  metrics_.ToolCallFinished("read_file", /*cached=*/false, /*ok=*/false, absl::Milliseconds(5));
  EXPECT_THAT(
      Sample(registry_,
             R"(taskboard_worker_tool_calls_total{cached="true",outcome="ok",tool="read_file"})"),
      Optional(1));
  EXPECT_THAT(
      Sample(
          registry_,
          R"(taskboard_worker_tool_calls_total{cached="false",outcome="error",tool="read_file"})"),
      Optional(1));
  EXPECT_THAT(
      Sample(registry_,
             R"(taskboard_worker_tool_calls_total{cached="false",outcome="ok",tool="read_file"})"),
      Optional(0));
  EXPECT_THAT(
      Sample(registry_, R"(taskboard_worker_tool_duration_seconds_count{tool="read_file"})"),
      Optional(1));
}

TEST_F(WorkerMetricsTest, ReconnectsAndConnected_FollowTheHooks) {
  metrics_.SetConnected(true);
  metrics_.Reconnecting();
  metrics_.Reconnecting();
  EXPECT_THAT(Sample(registry_, "taskboard_worker_connected"), Optional(1));
  EXPECT_THAT(Sample(registry_, "taskboard_worker_reconnects_total"), Optional(2));
}

TEST_F(WorkerMetricsTest, LlmGrantWaited_ObservedByOutcomeEverySeriesFromTheStart) {
  for (const char* outcome : {"granted", "refused", "unreachable", "abandoned"}) {
    EXPECT_THAT(
        Sample(registry_, absl::StrCat(R"(taskboard_worker_llm_grant_wait_seconds_count{outcome=")",
                                       outcome, R"("})")),
        Optional(0))
        << outcome;
  }
  metrics_.LlmGrantWaited(GrantWaitOutcome::kGranted, absl::Seconds(2));
  metrics_.LlmGrantWaited(GrantWaitOutcome::kGranted, absl::Milliseconds(500));
  metrics_.LlmGrantWaited(GrantWaitOutcome::kUnreachable, absl::Seconds(60));
  EXPECT_THAT(
      Sample(registry_, R"(taskboard_worker_llm_grant_wait_seconds_count{outcome="granted"})"),
      Optional(2));
  EXPECT_THAT(
      Sample(registry_, R"(taskboard_worker_llm_grant_wait_seconds_sum{outcome="granted"})"),
      Optional(::testing::DoubleNear(2.5, 1e-9)));
  EXPECT_THAT(
      Sample(registry_, R"(taskboard_worker_llm_grant_wait_seconds_count{outcome="unreachable"})"),
      Optional(1));
}

// LlmGrants' waits, through its hook.
TEST_F(WorkerMetricsTest, LlmGrants_GrantedAndRefusedWaitsObserved) {
  FakeLlmGrantLink link;
  LlmGrants grants(link, {.metrics = &metrics_});
  grants.OnWelcome(true);
  CancelToken cancel;
  const LlmTask task{.task_id = "scan", .lease_id = "l1", .run_id = "r1"};
  for (bool granted : {true, false}) {
    absl::StatusOr<std::string> result;
    // Counted before the call starts: it may send before this thread looks.
    const size_t index = link.sent().size();
    std::thread call(
        [&] { result = grants.Acquire(task, {.model = "m"}, &cancel, absl::InfiniteFuture()); });
    std::optional<v1::ConnectRequest> sent = link.WaitForMessage(index);
    if (!sent.has_value()) cancel.Cancel("no request was sent");
    if (!sent.has_value()) call.join();
    ASSERT_TRUE(sent.has_value());
    v1::LlmGrant grant;
    grant.set_request_id(sent->llm_grant_request().request_id());
    grant.set_granted(granted);
    grant.set_grant_id("g");
    grants.OnGrant(grant);
    call.join();
    EXPECT_EQ(result.ok(), granted);
  }
  EXPECT_THAT(
      Sample(registry_, R"(taskboard_worker_llm_grant_wait_seconds_count{outcome="granted"})"),
      Optional(1));
  EXPECT_THAT(
      Sample(registry_, R"(taskboard_worker_llm_grant_wait_seconds_count{outcome="refused"})"),
      Optional(1));
}

// The tool caller's calls, through its hook.
class ToolCallerMetricsTest : public WorkerMetricsTest {
 protected:
  ToolCallerMetricsTest() {
    auto tool = std::make_unique<CountingTool>("echo");
    tool_ = tool.get();
    EXPECT_THAT(tools_.Add(std::move(tool)), IsOk());
    ToolCallerOptions options;
    options.metrics = &metrics_;
    caller_ = std::make_unique<ToolCaller>(tools_, link_, options);
    link_.set_caller(caller_.get());
  }

  absl::StatusOr<ToolCallResult> Call() {
    ToolTask task;
    task.task_id = "scan";
    task.lease_id = "l1";
    task.workdir = "/work/repo";
    task.cancel = &cancel_;
    return caller_->Call(task, "echo", R"({"path":"a.txt"})");
  }

  ToolRegistry tools_;
  CountingTool* tool_;
  FakeToolLink link_;
  CancelToken cancel_;
  std::unique_ptr<ToolCaller> caller_;
};

TEST_F(ToolCallerMetricsTest, CachedAndExecutedCalls_CountedByCachedWithExecutionsTimed) {
  v1::ToolDecision hit;
  hit.set_outcome(v1::ToolDecision::OUTCOME_HIT);
  hit.set_result_json(R"({"cached":"yes"})");
  link_.AnswerWith(hit);
  ASSERT_THAT(Call(), IsOk());
  link_.AnswerWith(v1::ToolDecision::OUTCOME_MISS);
  ASSERT_THAT(Call(), IsOk());
  tool_->fail = "disk on fire";
  ASSERT_THAT(Call(), StatusIs(absl::StatusCode::kUnknown));

  EXPECT_THAT(
      Sample(registry_,
             R"(taskboard_worker_tool_calls_total{cached="true",outcome="ok",tool="echo"})"),
      Optional(1));
  EXPECT_THAT(
      Sample(registry_,
             R"(taskboard_worker_tool_calls_total{cached="false",outcome="ok",tool="echo"})"),
      Optional(1));
  EXPECT_THAT(
      Sample(registry_,
             R"(taskboard_worker_tool_calls_total{cached="false",outcome="error",tool="echo"})"),
      Optional(1));
  EXPECT_THAT(Sample(registry_, R"(taskboard_worker_tool_duration_seconds_count{tool="echo"})"),
              Optional(2));
}

TEST_F(ToolCallerMetricsTest, UnknownTool_NotCounted) {
  ToolTask task;
  task.cancel = &cancel_;
  EXPECT_THAT(caller_->Call(task, "no_such_tool", "{}"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_FALSE(absl::StrContains(Exposition(registry_), "taskboard_worker_tool_calls_total"));
}

// The session's hooks, against the scripted gateway.
class SessionMetricsTest : public SessionHarness {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(LoadAgents({})); }

  void Start() {
    SessionOptions options;
    options.slots = 2;
    options.metrics = &metrics_;
    StartSession(options);
  }

  metrics::Registry registry_;
  WorkerMetrics metrics_{registry_};
};

TEST_F(SessionMetricsTest, FinishedTask_CountedWithSlotsAndConnection) {
  Start();
  FakeStream* stream = Welcome(0);
  stream->Send(Assign("noop", "l1", "echo this"));
  Expect(stream, v1::ConnectRequest::kTaskStarted);
  EXPECT_THAT(Sample(registry_, "taskboard_worker_connected"), Optional(1));
  EXPECT_THAT(session_->Readiness(), IsOk());
  Expect(stream, v1::ConnectRequest::kTaskResult);
  Expect(stream, v1::ConnectRequest::kCredits);

  EXPECT_THAT(
      Sample(registry_, R"(taskboard_worker_tasks_total{agent="noop",outcome="succeeded"})"),
      Optional(1));
  EXPECT_THAT(Sample(registry_, R"(taskboard_worker_task_duration_seconds_count{agent="noop"})"),
              Optional(1));
  EXPECT_THAT(Sample(registry_, R"(taskboard_worker_slots{state="busy"})"), Optional(0));
  EXPECT_THAT(Sample(registry_, R"(taskboard_worker_slots{state="free"})"), Optional(2));
}

TEST_F(SessionMetricsTest, StreamEnds_CountsReconnectAndIsNotReady) {
  Start();
  Welcome(0);
  gateway_.EndAll();
  ASSERT_NE(gateway_.WaitForStream(1), nullptr);
  // Connected again, but not welcomed yet.
  EXPECT_THAT(Sample(registry_, "taskboard_worker_reconnects_total"), Optional(1));
  EXPECT_THAT(Sample(registry_, "taskboard_worker_connected"), Optional(0));
  EXPECT_THAT(session_->Readiness(), StatusIs(absl::StatusCode::kUnavailable,
                                              HasSubstr("not connected to the scheduler")));
}

}  // namespace
}  // namespace taskboard::worker
