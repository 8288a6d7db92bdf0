// The usage a run shows (GetRun's usage and billed, GetTask) follows one
// arithmetic (scheduler/governance/usage_sum.h): a worker reporting negative
// counts (a model server's, passed on) cannot make a total negative, huge
// counts saturate instead of wrapping, and what the tasks show equals what
// the calls billed.

#include <cstdint>
#include <string>

#include "common/llm_call_usage.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/run_reader.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;

constexpr char kTwoPhases[] = R"({"name": "two", "phases": [
    {"id": "a", "agent": "writer", "task": "a"},
    {"id": "b", "agent": "writer", "task": "b", "dependsOn": ["a"]}]})";

class UsageTotalsTest : public ::testing::Test {
 protected:
  // One model call of `task` as the worker reports it for billing.
  void ReportCall(const v1::Assignment& task, int64_t input, int64_t output, double usd) {
    v1::ConnectRequest message;
    v1::LlmCallReport& report = *message.mutable_llm_call_report();
    report.set_task_id(task.task_id());
    report.set_lease_id(task.lease_id());
    report.set_run_id(task.run_id());
    report.set_model("m");
    report.set_http_status(200);
    report.set_input_tokens(input);
    report.set_output_tokens(output);
    report.set_cost_usd(usd);
    h_.Send(w_, message);
  }

  // The task's result with the usage the worker summed.
  void FinishWithUsage(const v1::Assignment& task, int64_t input, int64_t output, double usd) {
    h_.Started(w_, task);
    v1::ConnectRequest message;
    v1::TaskResult& result = *message.mutable_task_result();
    result.set_task_id(task.task_id());
    result.set_lease_id(task.lease_id());
    result.set_success(true);
    result.set_output("done");
    result.mutable_usage()->set_input_tokens(input);
    result.mutable_usage()->set_output_tokens(output);
    result.mutable_usage()->set_cost_usd(usd);
    result.mutable_usage()->set_turns(1);
    h_.Send(w_, message);
    h_.Credits(w_, 1);
  }

  v1::Run Run(const std::string& run_id) {
    absl::StatusOr<store::RunRecord> record = ReadRunRecord(h_.store(), run_id);
    EXPECT_TRUE(record.ok()) << record.status();
    return record.ok() ? record->run() : v1::Run();
  }

  EngineHarness h_;
  TestWorker w_;
};

TEST_F(UsageTotalsTest, NegativeCountsFromAWorker_TotalsShowZeroLikeTheBill) {
  const std::string run_id = h_.Submit(kTwoPhases);
  w_ = h_.Connect("w1", {"writer"});
  v1::Assignment a = h_.OnlyAssignment(w_);
  ReportCall(a, -1'000'000'000, -5, -2'000);
  FinishWithUsage(a, -1'000'000'000, -5, -2'000);

  EXPECT_EQ(h_.ReadTaskView(run_id, "a").usage().input_tokens(), 0);
  EXPECT_EQ(h_.ReadTaskView(run_id, "a").usage().cost_usd(), 0);
  v1::Run run = Run(run_id);
  EXPECT_EQ(run.usage().input_tokens(), 0);
  EXPECT_EQ(run.usage().output_tokens(), 0);
  EXPECT_EQ(run.usage().cost_usd(), 0);
  EXPECT_EQ(run.billed().input_tokens(), run.usage().input_tokens());
  EXPECT_EQ(run.billed().cost_usd(), run.usage().cost_usd());

  // A normal task after it: the totals are its usage, as billed.
  v1::Assignment b = h_.OnlyAssignment(w_);
  ReportCall(b, 120, 30, 0.25);
  FinishWithUsage(b, 120, 30, 0.25);
  run = Run(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.usage().input_tokens(), 120);
  EXPECT_EQ(run.usage().output_tokens(), 30);
  EXPECT_DOUBLE_EQ(run.usage().cost_usd(), 0.25);
  EXPECT_EQ(run.billed().input_tokens(), run.usage().input_tokens());
  EXPECT_EQ(run.billed().output_tokens(), run.usage().output_tokens());
  EXPECT_DOUBLE_EQ(run.billed().cost_usd(), run.usage().cost_usd());
}

TEST_F(UsageTotalsTest, HugeCounts_RunTotalSaturatesInsteadOfWrappingNegative) {
  const std::string run_id = h_.Submit(kTwoPhases);
  w_ = h_.Connect("w1", {"writer"});
  FinishWithUsage(h_.OnlyAssignment(w_), INT64_MAX - 1, 0, 0);
  FinishWithUsage(h_.OnlyAssignment(w_), INT64_MAX - 1, 0, 0);
  v1::Run run = Run(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(run.usage().input_tokens(), INT64_MAX);
}

TEST_F(UsageTotalsTest, HugeReportedCalls_BilledAtTheBoundOfOneCall) {
  const std::string run_id = h_.Submit(kTwoPhases);
  w_ = h_.Connect("w1", {"writer"});
  v1::Assignment a = h_.OnlyAssignment(w_);
  ReportCall(a, INT64_MAX, INT64_MAX, 1e300);
  v1::Run run = Run(run_id);
  EXPECT_EQ(run.billed().input_tokens(), kMaxCallTokens);
  EXPECT_EQ(run.billed().output_tokens(), kMaxCallTokens);
  EXPECT_DOUBLE_EQ(run.billed().cost_usd(), kMaxCallUsd);
}

}  // namespace
}  // namespace taskboard::engine
