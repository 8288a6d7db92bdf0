// PriorWorkService on its own (tool_calls/prior_work.h): what a dispatch
// carries when the ledger cannot be read, and how an external policy is
// asked after the dispatch is written.

#include "scheduler/engine/tool_calls/prior_work.h"

#include <memory>
#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/store/keys.h"
#include "tests/unit/engine/recording_channel.h"
#include "tests/unit/engine/tool_calls/tool_calls_fixture.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::RecordingChannel;
using ::taskboard::engine::testing::RecordingPolicyService;
using ::taskboard::engine::testing::ToolCallsFixture;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

constexpr char kChain[] = R"({"name": "chain", "phases": [
    {"id": "a", "agent": "coder", "task": "explore"},
    {"id": "b", "agent": "coder", "task": "build on a", "dependsOn": ["a"]}]})";

constexpr char kExternalChain[] = R"({"name": "external", "flowPolicy":
    {"type": "custom", "external": "127.0.0.1:9", "externalTimeoutMs": 1500}, "phases": [
    {"id": "a", "agent": "coder", "task": "explore"},
    {"id": "b", "agent": "coder", "task": "build on a", "dependsOn": ["a"]}]})";

using Kind = PriorWorkSource::Choice::Kind;

TEST(PriorWorkService, LedgerUnreadable_TaskGoesOutWithoutPriorWorkSayingWhy) {
  ToolCallsFixture f;
  const std::string run = f.runs().Start(kChain);
  // The request's first ledger entry does not parse: the ledger cannot load.
  store::WriteBatch garbage;
  garbage.Put(store::Column::kLedger, store::keys::LedgerEntry(run, 1), "not a proto");
  ASSERT_TRUE(f.runs().store().Write(std::move(garbage)).ok());

  PriorWorkSource::Choice choice = f.tool_calls().prior_work().ChooseFor(f.active(run), "a");
  ASSERT_EQ(choice.kind, Kind::kSend) << choice.status;
  EXPECT_EQ(choice.prior_work.meta().policy(), "none");
  EXPECT_THAT(choice.prior_work.meta().fallback_reason(), StartsWith("ledger unavailable: "));
  EXPECT_THAT(choice.prior_work.observations(), IsEmpty());
}

TEST(PriorWorkService, Selected_RecordedForGetTask) {
  ToolCallsFixture f;
  const std::string run = f.runs().Start(kChain);
  f.Record(run, "a", 2);
  PriorWorkSource::Choice choice = f.tool_calls().prior_work().ChooseFor(f.active(run), "b");
  ASSERT_EQ(choice.kind, Kind::kSend) << choice.status;
  EXPECT_EQ(choice.prior_work.meta().policy(), "declared_deps_only");
  EXPECT_EQ(choice.prior_work.meta().available(), 2);
  f.Commit();
  // GetTask shows what the dispatch carried.
  v1::GetTaskResponse task;
  ASSERT_TRUE(ReadTaskToolWork(f.runs().store(), run, "b", task).ok());
  EXPECT_EQ(task.prior_work().SerializeAsString(), choice.prior_work.SerializeAsString());
}

// An external policy is asked once the dispatch is written; its deadline
// is the policy's externalTimeoutMs, capped at half the lease: the worker
// does not heartbeat a task it has not been sent.
class ExternalPriorWorkTest : public ::testing::Test {
 protected:
  ExternalPriorWorkTest() {
    run_ = f_.runs().Start(kExternalChain);
    f_.Connect(1, "w1", channel_);
    f_.Dispatch(run_, "a", "lease-a", "w1", 1);
    f_.Commit();
  }
  // a's assignment, handed over after kAfterCommit.
  void SendAfterCommit() {
    PriorWorkSource::Choice choice = f_.tool_calls().prior_work().ChooseFor(f_.active(run_), "a");
    ASSERT_EQ(choice.kind, Kind::kAfterCommit);
    v1::ConnectResponse message;
    message.mutable_assignment()->set_task_id("a");
    message.mutable_assignment()->set_lease_id("lease-a");
    f_.tool_calls().prior_work().SendAfterCommit(f_.active(run_), std::move(message));
  }

  RecordingPolicyService service_;
  ToolCallsFixture f_{2'000, &service_};
  std::string run_;
  std::shared_ptr<RecordingChannel> channel_ = std::make_shared<RecordingChannel>();
};

TEST_F(ExternalPriorWorkTest, DeadlineCappedAtHalfTheLease) {
  SendAfterCommit();
  EXPECT_THAT(service_.calls, IsEmpty()) << "asked before the dispatch was written";
  f_.Commit();
  ASSERT_THAT(service_.calls, SizeIs(1));
  EXPECT_EQ(service_.calls[0].address, "127.0.0.1:9");
  EXPECT_EQ(service_.calls[0].timeout_ms, 1'000);  // 1500 asked, the lease is 2000
  EXPECT_EQ(service_.calls[0].request.task().task_id(), "a");
  EXPECT_THAT(channel_->Take(), IsEmpty());

  // The answer comes back through the loop and the assignment goes out.
  service_.calls[0].done(v1::SelectPriorWorkResponse());
  f_.poster().RunPosted();
  f_.Commit();
  std::vector<v1::ConnectResponse> sent = channel_->Take();
  ASSERT_THAT(sent, SizeIs(1));
  EXPECT_EQ(sent[0].assignment().task_id(), "a");
  EXPECT_EQ(sent[0].assignment().prior_work().meta().policy(), "custom");
}

TEST_F(ExternalPriorWorkTest, LeaseEndsWhileAsking_CreditBackAndTheAnswerIsDropped) {
  SendAfterCommit();
  f_.Commit();
  const int credits = f_.workers().streams().Find(1)->credits;
  f_.workers().leases().End("lease-a");
  EXPECT_EQ(f_.workers().streams().Find(1)->credits, credits + 1);
  EXPECT_EQ(f_.tool_calls().prior_work().awaiting(), 0u);

  service_.calls[0].done(v1::SelectPriorWorkResponse());
  f_.poster().RunPosted();
  f_.Commit();
  EXPECT_THAT(channel_->Take(), IsEmpty());
}

}  // namespace
}  // namespace taskboard::engine
