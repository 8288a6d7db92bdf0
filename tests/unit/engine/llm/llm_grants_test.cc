#include "scheduler/engine/llm/llm_grants.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/llm_call_usage.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/workers/lease_keeper.h"
#include "scheduler/engine/workers/worker_streams.h"
#include "tests/unit/engine/recording_channel.h"
#include "tests/unit/engine/runs/runs_fixture.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::RecordingChannel;
using ::taskboard::engine::testing::RunsFixture;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::SizeIs;
using ::testing::StartsWith;

std::string OneTask(const std::string& budget) {
  return R"({"name": "one", )" + budget + R"("phases": [
      {"id": "a", "agent": "coder", "task": "A"}]})";
}

// LlmGrants over a real run, lease and worker stream; the runs' fake lease
// revoker records what a budget stop revokes.
class LlmGrantsTest : public ::testing::Test {
 protected:
  static constexpr int64_t kNow = RunsFixture::kStartMs;

  LlmGrantsTest() { leases_.AddListener(&llm_); }

  // Starts `flow_text`, connects w1 on stream 1 and dispatches task a under
  // lease-1 to it.
  void StartAndDispatch(const std::string& flow_text) {
    run_id_ = f_.Start(flow_text);
    v1::Hello hello;
    hello.set_worker_id("w1");
    hello.set_slots(1);
    streams_.Add(1, hello, channel_, "");
    RunState& run = *f_.runs().active().Find(run_id_)->state;
    MarkDispatched(run.MutableTask("a"), "lease-1", "w1", kNow);
    leases_.Grant({"lease-1", run_id_, "a", "w1", "", 1, kNow + 30'000});
    f_.Commit();
  }

  v1::LlmGrantRequest Request(int64_t input, int64_t output, std::string model = "m") {
    v1::LlmGrantRequest request;
    request.set_request_id("q" + std::to_string(++asks_));
    request.set_task_id("a");
    request.set_lease_id("lease-1");
    request.set_model(std::move(model));
    request.set_estimated_input_tokens(input);
    request.set_max_output_tokens(output);
    return request;
  }
  // Asks, commits; the LlmGrant sent on the stream.
  v1::LlmGrant Ask(const v1::LlmGrantRequest& request) {
    llm_.OnGrantRequest(1, request);
    f_.Commit();
    std::vector<v1::ConnectResponse> sent = channel_->Take();
    EXPECT_THAT(sent, SizeIs(1));
    return sent.empty() ? v1::LlmGrant() : sent[0].llm_grant();
  }
  v1::LlmCallReport Report(const std::string& grant_id, int64_t input, int64_t output) {
    v1::LlmCallReport report;
    report.set_grant_id(grant_id);
    report.set_task_id("a");
    report.set_lease_id("lease-1");
    report.set_run_id(run_id_);
    report.set_model("m");
    report.set_http_status(200);
    report.set_input_tokens(input);
    report.set_output_tokens(output);
    report.set_cost_usd(0.25);
    return report;
  }
  const v1::Run& ActiveRunView() { return f_.runs().active().Find(run_id_)->state->record().run(); }

  RunsFixture f_;
  std::string run_id_;
  std::shared_ptr<RecordingChannel> channel_ = std::make_shared<RecordingChannel>();
  WorkerStreams streams_{&f_.batch()};
  LeaseKeeper leases_{
      {&f_.store(), 30'000, 3, nullptr}, &f_.batch(), &f_.runs().active(), &streams_};
  LlmGrants llm_{{&f_.store(), &f_.store(), {}, nullptr},
                 &f_.batch(),
                 &f_.runs().active(),
                 &f_.runs().retention(),
                 &leases_,
                 &streams_,
                 &f_.revoker()};
  int asks_ = 0;
};

TEST_F(LlmGrantsTest, Ask_NoLimits_GrantedAtOnce) {
  StartAndDispatch(OneTask(""));
  const v1::LlmGrant grant = Ask(Request(100, 50));
  EXPECT_TRUE(grant.granted()) << grant.error();
  EXPECT_EQ(grant.request_id(), "q1");
  EXPECT_FALSE(grant.grant_id().empty());
  EXPECT_EQ(llm_.governor().LeaseCalls("lease-1"), 1u);
  // The lease ends: its grant is released with it.
  leases_.End("lease-1");
  EXPECT_EQ(llm_.governor().LeaseCalls("lease-1"), 0u);
}

TEST_F(LlmGrantsTest, RootBudget_CallOverIt_PausesTheTreeThroughRevoke) {
  StartAndDispatch(OneTask(R"("budget": {"tokens": 1000}, )"));
  const v1::LlmGrant first = Ask(Request(400, 100));
  ASSERT_TRUE(first.granted()) << first.error();
  llm_.OnCallReport(Report(first.grant_id(), 400, 100));
  f_.Commit();
  EXPECT_THAT(f_.revoker().revoked, IsEmpty());

  // 500 billed; 600 more would pass 1,000.
  const v1::LlmGrant second = Ask(Request(500, 100));
  EXPECT_FALSE(second.granted());
  EXPECT_THAT(second.error(),
              HasSubstr("run " + run_id_ + "'s budget of 1000 tokens is reached: 500 billed"));
  // The root ends paused and its leases go through the revoker.
  absl::StatusOr<store::RunRecord> stored = ReadRunRecord(f_.store(), run_id_);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->run().status(), v1::RUN_STATUS_PAUSED);
  EXPECT_THAT(f_.revoker().revoked,
              ElementsAre(Pair("lease-1", StartsWith("paused: run " + run_id_ + "'s budget"))));
}

TEST_F(LlmGrantsTest, RootBudget_OnBudgetFail_RefusesTheCallOnly) {
  StartAndDispatch(OneTask(R"("budget": {"tokens": 100}, "onBudget": "fail", )"));
  const v1::LlmGrant grant = Ask(Request(500, 100));
  EXPECT_FALSE(grant.granted());
  EXPECT_THAT(grant.error(), HasSubstr("budget of 100 tokens"));
  EXPECT_THAT(f_.revoker().revoked, IsEmpty());
  EXPECT_EQ(ActiveRunView().status(), v1::RUN_STATUS_RUNNING);
}

TEST_F(LlmGrantsTest, Report_ForARunThatEnded_IsBilledToItsStoredRecord) {
  StartAndDispatch(OneTask(""));
  const v1::LlmGrant grant = Ask(Request(300, 100));
  ASSERT_TRUE(grant.granted()) << grant.error();
  // The run is cancelled with the call in flight and leaves memory.
  std::function<void(absl::StatusOr<v1::RunStatus>)> done = [](absl::StatusOr<v1::RunStatus>) {};
  f_.runs().Cancel(run_id_, "stop", done);
  f_.Commit();
  ASSERT_EQ(f_.runs().active().Find(run_id_), nullptr);

  llm_.OnCallReport(Report(grant.grant_id(), 300, 90));
  llm_.BillEndedRuns();
  f_.Commit();
  absl::StatusOr<store::RunRecord> stored = ReadRunRecord(f_.store(), run_id_);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->run().status(), v1::RUN_STATUS_CANCELLED);
  EXPECT_EQ(stored->run().billed().input_tokens(), 300);
  EXPECT_EQ(stored->run().billed().output_tokens(), 90);
  EXPECT_DOUBLE_EQ(stored->run().billed().cost_usd(), 0.25);
  // And the tenant's usage row, read as GetUsage reads it.
  absl::StatusOr<std::vector<v1::UsageRow>> usage = llm_.ReadUsage("", "2000-01-01");
  ASSERT_TRUE(usage.ok()) << usage.status();
  ASSERT_THAT(*usage, SizeIs(1));
  EXPECT_EQ((*usage)[0].requests(), 1);
  EXPECT_EQ((*usage)[0].usage().input_tokens(), 300);
}

TEST_F(LlmGrantsTest, HostileAsks_AreRefusedOrBounded) {
  StartAndDispatch(OneTask(R"("budget": {"tokens": 1000}, )"));
  // A model name that cannot be a metric label.
  v1::LlmGrant grant = Ask(Request(1, 1, std::string(300, 'm')));
  EXPECT_FALSE(grant.granted());
  EXPECT_THAT(grant.error(), HasSubstr("1 to 200 characters, got 300"));
  grant = Ask(Request(1, 1, "two words"));
  EXPECT_FALSE(grant.granted());
  EXPECT_THAT(grant.error(), HasSubstr("printable ASCII without spaces"));

  // Estimates past any window cannot overflow the budget check: the call is
  // simply over the budget.
  grant = Ask(Request(INT64_MAX, INT64_MAX));
  EXPECT_FALSE(grant.granted());
  EXPECT_THAT(grant.error(), HasSubstr("budget of 1000 tokens is reached"));
}

TEST_F(LlmGrantsTest, HostileAsks_CallsPerLeaseAreCapped) {
  StartAndDispatch(OneTask(""));
  for (int i = 0; i < 64; ++i) ASSERT_TRUE(Ask(Request(1, 1)).granted()) << i;
  const v1::LlmGrant grant = Ask(Request(1, 1));
  EXPECT_FALSE(grant.granted());
  EXPECT_THAT(grant.error(), HasSubstr("already has 64 model calls waiting or running"));
}

TEST_F(LlmGrantsTest, HostileReport_TokensAreBounded) {
  StartAndDispatch(OneTask(""));
  const v1::LlmGrant grant = Ask(Request(1, 1));
  llm_.OnCallReport(Report(grant.grant_id(), INT64_MAX, -5));
  f_.Commit();
  EXPECT_EQ(ActiveRunView().billed().input_tokens(), kMaxCallTokens);
  EXPECT_EQ(ActiveRunView().billed().output_tokens(), 0);
}

TEST_F(LlmGrantsTest, AskUnderALeaseThatEnded_IsRefused) {
  StartAndDispatch(OneTask(""));
  leases_.End("lease-1");
  const v1::LlmGrant grant = Ask(Request(1, 1));
  EXPECT_FALSE(grant.granted());
  EXPECT_THAT(grant.error(), HasSubstr("no longer holds this lease"));
}

TEST_F(LlmGrantsTest, StreamClosed_WaitingAskIsDropped) {
  governance::LlmLimits limits;
  limits.models["m"].concurrency = 1;
  llm_.SetLimits(limits);
  StartAndDispatch(OneTask(""));
  const v1::LlmGrant first = Ask(Request(1, 1));
  ASSERT_TRUE(first.granted()) << first.error();
  // The second waits for the first's slot.
  llm_.OnGrantRequest(1, Request(1, 1));
  f_.Commit();
  EXPECT_THAT(channel_->Take(), IsEmpty());
  EXPECT_EQ(llm_.governor().waiting(), 1u);

  // The stream closes: the wait is dropped (the worker asks again on its
  // next stream), and the freed slot grants nothing on the closed stream.
  // WorkerManager::Disconnected detaches the stream's leases, then tells
  // its listeners.
  leases_.Detach(1);
  llm_.OnStreamClosed(1);
  EXPECT_EQ(llm_.governor().waiting(), 0u);
  llm_.OnCallReport(Report(first.grant_id(), 1, 1));
  llm_.GrantDue();
  f_.Commit();
  EXPECT_THAT(channel_->Take(), IsEmpty());
}

}  // namespace
}  // namespace taskboard::engine
