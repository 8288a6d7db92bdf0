// LLM governance in the engine (docs/llm-governance.md): grants answered on
// the worker's stream, every reported call billed to its run and every run
// above it, and a root run's budget stopping a call its child run makes.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/store/keys.h"
#include "scheduler/store/records.pb.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// A plan whose every step is a child supervisor run (runs/nested_runs_engine_test.cc).
std::string NestedPlan(const std::string& budget) {
  return R"({"name": "migrate", "kind": "plan_and_execute", )" + budget +
         R"("planAndExecute": {"goal": "migrate", "plannerAgent": "planner",
      "synthesizerAgent": "writer",
      "stepExecutor": {"plannerAgent": "lead", "workerAgent": "coder",
                       "reviewerAgent": "lead", "synthesizerAgent": "lead"}}})";
}

constexpr char kOneStep[] = R"({"tasks": [{"id": "storage", "goal": "Migrate storage"}]})";

class LlmBillingTest : public ::testing::Test {
 protected:
  // Submits the plan, plans one step; the step's child run's planner is
  // the assignment returned.
  v1::Assignment StartChild(const std::string& budget) {
    run_ = h_.Submit(NestedPlan(budget));
    w_ = h_.Connect("w1", {"planner", "writer", "lead", "coder"}, 8);
    h_.Finish(w_, h_.OnlyAssignment(w_), true, kOneStep);
    std::vector<v1::Assignment> sent = h_.TakeAssignments(w_);
    EXPECT_THAT(sent, SizeIs(1));
    return sent.empty() ? v1::Assignment() : sent[0];
  }

  // Asks for a grant under `task`'s lease; the LlmGrant the engine sent.
  v1::LlmGrant Ask(const v1::Assignment& task, int64_t input, int64_t output) {
    v1::ConnectRequest message;
    v1::LlmGrantRequest& ask = *message.mutable_llm_grant_request();
    ask.set_request_id("q" + std::to_string(++asks_));
    ask.set_task_id(task.task_id());
    ask.set_lease_id(task.lease_id());
    ask.set_model("m");
    ask.set_estimated_input_tokens(input);
    ask.set_max_output_tokens(output);
    h_.Send(w_, message);
    for (const v1::ConnectResponse& sent : w_.channel->Take()) {
      if (sent.has_llm_grant()) return sent.llm_grant();
    }
    ADD_FAILURE() << "no LlmGrant sent";
    return {};
  }

  void Report(const v1::Assignment& task, const std::string& grant_id, int64_t input,
              int64_t output) {
    v1::ConnectRequest message;
    v1::LlmCallReport& report = *message.mutable_llm_call_report();
    report.set_grant_id(grant_id);
    report.set_task_id(task.task_id());
    report.set_lease_id(task.lease_id());
    report.set_run_id(task.run_id());
    report.set_model("m");
    report.set_http_status(200);
    report.set_input_tokens(input);
    report.set_output_tokens(output);
    report.set_cost_usd(0.25);
    h_.Send(w_, message);
  }

  v1::Run Run(const std::string& run_id) {
    absl::StatusOr<store::RunRecord> record = ReadRunRecord(h_.store(), run_id);
    EXPECT_TRUE(record.ok()) << record.status();
    return record.ok() ? record->run() : v1::Run();
  }

  EngineHarness h_;
  std::string run_;
  TestWorker w_;
  int asks_ = 0;
};

TEST_F(LlmBillingTest, AChildRunsCallIsBilledToItAndToEveryRunAboveIt) {
  const v1::Assignment planner = StartChild("");
  ASSERT_NE(planner.run_id(), run_);
  const v1::LlmGrant grant = Ask(planner, 100, 50);
  ASSERT_TRUE(grant.granted()) << grant.error();
  EXPECT_FALSE(grant.grant_id().empty());
  Report(planner, grant.grant_id(), 120, 30);

  for (const std::string& id : {planner.run_id(), run_}) {
    const v1::Run run = Run(id);
    EXPECT_EQ(run.billed().input_tokens(), 120) << id;
    EXPECT_EQ(run.billed().output_tokens(), 30) << id;
    EXPECT_EQ(run.billed().turns(), 1) << id;
    // No price in the (empty) limits: the agent file's, as reported.
    EXPECT_DOUBLE_EQ(run.billed().cost_usd(), 0.25) << id;
  }
  absl::StatusOr<std::vector<v1::UsageRow>> usage = h_.engine().ReadUsage("", "2000-01-01");
  ASSERT_TRUE(usage.ok());
  ASSERT_THAT(*usage, SizeIs(1));
  EXPECT_EQ((*usage)[0].requests(), 1);
  EXPECT_EQ((*usage)[0].usage().input_tokens(), 120);
}

TEST_F(LlmBillingTest, ARootBudgetStopsItsChildsCallAndPausesTheWholeTree) {
  const v1::Assignment planner = StartChild(R"("budget": {"tokens": 1000}, )");
  const v1::LlmGrant first = Ask(planner, 400, 100);
  ASSERT_TRUE(first.granted()) << first.error();
  Report(planner, first.grant_id(), 400, 100);
  // 500 billed; 600 more could pass the root's 1,000.
  const v1::LlmGrant second = Ask(planner, 500, 100);
  EXPECT_FALSE(second.granted());
  EXPECT_THAT(second.error(),
              HasSubstr("run " + run_ + "'s budget of 1000 tokens is reached: 500 billed"));
  EXPECT_THAT(second.error(), HasSubstr("taskboard resume " + run_ + " --budget-usd"));
  EXPECT_EQ(Run(run_).status(), v1::RUN_STATUS_PAUSED);
  EXPECT_THAT(Run(run_).error(), HasSubstr("paused: run " + run_ + "'s budget"));
  EXPECT_EQ(Run(planner.run_id()).status(), v1::RUN_STATUS_CANCELLED);

  // Resumed with more, the child's planner asks again and is granted.
  absl::StatusOr<ResumeResult> refused = [&] {
    absl::StatusOr<ResumeResult> result;
    h_.engine().Resume(run_, ResumeBudget{.tokens = 400},
                       [&](absl::StatusOr<ResumeResult> r) { result = r; });
    h_.RunOnce();
    return result;
  }();
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("has billed 500 tokens already"));
  absl::StatusOr<ResumeResult> resumed;
  h_.engine().Resume(run_, ResumeBudget{.tokens = 5000},
                     [&](absl::StatusOr<ResumeResult> r) { resumed = r; });
  h_.RunOnce();
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(Run(run_).budget().tokens(), 5000);
  EXPECT_EQ(Run(run_).billed().input_tokens(), 400);
}

TEST_F(LlmBillingTest, HostileAsksAreRefusedOrBounded) {
  const v1::Assignment planner = StartChild(R"("budget": {"tokens": 1000}, )");
  v1::ConnectRequest message;
  v1::LlmGrantRequest& ask = *message.mutable_llm_grant_request();
  ask.set_request_id("bad-model");
  ask.set_task_id(planner.task_id());
  ask.set_lease_id(planner.lease_id());
  ask.set_model(std::string(300, 'm'));
  h_.Send(w_, message);
  std::vector<v1::ConnectResponse> sent = w_.channel->Take();
  ASSERT_THAT(sent, SizeIs(1));
  EXPECT_FALSE(sent[0].llm_grant().granted());
  EXPECT_THAT(sent[0].llm_grant().error(), HasSubstr("1 to 200 characters, got 300"));

  // Estimates past any model's window cannot overflow the budget check:
  // the call is simply over the budget.
  const v1::LlmGrant huge = Ask(planner, INT64_MAX, INT64_MAX);
  EXPECT_FALSE(huge.granted());
  EXPECT_THAT(huge.error(), HasSubstr("budget of 1000 tokens is reached"));
}

TEST_F(LlmBillingTest, ACallStillRunningWhenTheRunPausedIsBilledToTheStoredRun) {
  run_ = h_.Submit(R"({"name": "two", "kind": "board", "budget": {"tokens": 1000},
      "board": {"tasks": [{"id": "a", "agent": "coder", "task": "A"},
                          {"id": "b", "agent": "coder", "task": "B"}]}})");
  w_ = h_.Connect("w1", {"coder"}, 2);
  std::vector<v1::Assignment> tasks = h_.TakeAssignments(w_);
  ASSERT_THAT(tasks, SizeIs(2));
  const v1::LlmGrant running = Ask(tasks[0], 300, 100);
  ASSERT_TRUE(running.granted()) << running.error();
  // 400 reserved for a's call: b's 700 would pass 1,000.
  EXPECT_FALSE(Ask(tasks[1], 600, 100).granted());
  ASSERT_EQ(Run(run_).status(), v1::RUN_STATUS_PAUSED);
  // a's call ends after the pause; the paused run is billed for it.
  Report(tasks[0], running.grant_id(), 300, 90);
  EXPECT_EQ(Run(run_).billed().input_tokens(), 300);
  EXPECT_EQ(Run(run_).billed().output_tokens(), 90);
}

TEST_F(LlmBillingTest, AnAskUnderALeaseThatEndedIsRefused) {
  const v1::Assignment planner = StartChild("");
  v1::Assignment stale = planner;
  stale.set_lease_id("lease-that-ended");
  const v1::LlmGrant grant = Ask(stale, 10, 10);
  EXPECT_FALSE(grant.granted());
  EXPECT_THAT(grant.error(), HasSubstr("no longer holds this lease"));
}

// GetUsage's budgets: the engine's limits' tenant budgets with what each
// tenant billed in its current period, read from the stored usage rows.
// The harness's clock stands at 2023-11-14T22:13:20Z.
class TenantBudgetsTest : public ::testing::Test {
 protected:
  void StoreRow(const std::string& day, const std::string& tenant, int64_t tokens, double usd) {
    store::LlmUsageRecord record;
    record.set_requests(1);
    record.mutable_usage()->set_input_tokens(tokens);
    record.mutable_usage()->set_cost_usd(usd);
    store::WriteBatch batch;
    batch.Put(store::Column::kMeta, store::keys::LlmUsage(day, tenant, "m"),
              record.SerializeAsString());
    ASSERT_TRUE(h_.store().Write(batch).ok());
  }

  static governance::LlmLimits Limits(double acme_usd) {
    governance::LlmLimits limits;
    limits.tenants["acme"].budget = governance::TenantBudget{
        .usd = acme_usd, .tokens = 0, .period = governance::BudgetPeriod::kDay};
    limits.tenants["globex"].budget = governance::TenantBudget{
        .usd = 0, .tokens = 5000, .period = governance::BudgetPeriod::kMonth};
    limits.tenants["quiet"];  // listed without a budget
    return limits;
  }

  static EngineOptions WithLimits() {
    EngineOptions options = EngineHarness::DefaultOptions();
    options.llm_limits = Limits(3);
    return options;
  }

  EngineHarness h_{WithLimits()};
};

TEST_F(TenantBudgetsTest, EachBudgetWithWhatItsTenantBilledInTheCurrentPeriodOnly) {
  StoreRow("2023-11-13", "acme", 1000, 1.5);  // yesterday: not today's budget
  StoreRow("2023-11-14", "acme", 200, 0.75);
  StoreRow("2023-11-02", "globex", 300, 0);
  StoreRow("2023-11-14", "globex", 40, 0);
  StoreRow("2023-10-31", "globex", 9000, 0);  // last month

  absl::StatusOr<std::vector<v1::TenantBudget>> all = h_.engine().ReadTenantBudgets(std::nullopt);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_THAT(*all, SizeIs(2));
  const v1::TenantBudget& acme = (*all)[0];
  EXPECT_EQ(acme.tenant(), "acme");
  EXPECT_EQ(acme.period(), "day");
  EXPECT_EQ(absl::FromUnixSeconds(acme.period_start().seconds()),
            absl::FromCivil(absl::CivilDay(2023, 11, 14), absl::UTCTimeZone()));
  EXPECT_DOUBLE_EQ(acme.budget_usd(), 3);
  EXPECT_EQ(acme.billed_tokens(), 200);
  EXPECT_DOUBLE_EQ(acme.billed_usd(), 0.75);
  const v1::TenantBudget& globex = (*all)[1];
  EXPECT_EQ(globex.tenant(), "globex");
  EXPECT_EQ(globex.period(), "month");
  EXPECT_EQ(globex.budget_tokens(), 5000);
  EXPECT_EQ(globex.billed_tokens(), 340);

  absl::StatusOr<std::vector<v1::TenantBudget>> own = h_.engine().ReadTenantBudgets("globex");
  ASSERT_TRUE(own.ok());
  ASSERT_THAT(*own, SizeIs(1));
  EXPECT_EQ((*own)[0].tenant(), "globex");
  // Listed without a budget, or not listed: nothing.
  EXPECT_THAT(h_.engine().ReadTenantBudgets("quiet").value(), SizeIs(0));
  EXPECT_THAT(h_.engine().ReadTenantBudgets("beta").value(), SizeIs(0));
}

TEST_F(TenantBudgetsTest, NewLimits_ShowTheirBudgetsOnceTheLoopTakesThem) {
  h_.engine().SetLlmLimits(Limits(10));
  h_.RunOnce();
  absl::StatusOr<std::vector<v1::TenantBudget>> acme = h_.engine().ReadTenantBudgets("acme");
  ASSERT_TRUE(acme.ok());
  ASSERT_THAT(*acme, SizeIs(1));
  EXPECT_DOUBLE_EQ((*acme)[0].budget_usd(), 10);

  h_.engine().SetLlmLimits({});
  h_.RunOnce();
  EXPECT_THAT(h_.engine().ReadTenantBudgets(std::nullopt).value(), SizeIs(0));
}

}  // namespace
}  // namespace taskboard::engine
