// Summaries on their own (tool_calls/summaries.h): the compact policy's
// summary jobs, one per request and watermark, and the tasks parked on them.

#include "scheduler/engine/tool_calls/summaries.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/engine/recording_channel.h"
#include "tests/unit/engine/tool_calls/tool_calls_fixture.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::RecordingChannel;
using ::taskboard::engine::testing::ToolCallsFixture;
using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr char kCompactFanOut[] = R"({"name": "compact", "flowPolicy":
    {"type": "compact", "recentN": 1, "summarizerAgent": "summarizer"}, "phases": [
    {"id": "a", "agent": "coder", "task": "explore"},
    {"id": "b", "agent": "coder", "task": "use it", "dependsOn": ["a"]},
    {"id": "c", "agent": "coder", "task": "use it too", "dependsOn": ["a"]}]})";

using Kind = PriorWorkSource::Choice::Kind;

// `a` made three calls; b and c would be sent with a one-call window, so
// the two older calls must be summarized first. w1 offers the summarizer.
class SummariesTest : public ::testing::Test {
 protected:
  SummariesTest() {
    run_ = f_.runs().Start(kCompactFanOut);
    f_.Connect(1, "w1", channel_, {"coder", "summarizer"}, 3);
    f_.Record(run_, "a", 3);
    f_.Commit();
  }
  PriorWorkSource::Choice Choose(const std::string& task_id) {
    return f_.tool_calls().prior_work().ChooseFor(f_.active(run_), task_id);
  }
  // The summarizer assignments sent since the last call.
  std::vector<v1::Assignment> SummariesSent() {
    f_.tool_calls().prior_work().DispatchSummaries();
    f_.Commit();
    std::vector<v1::Assignment> sent;
    for (const v1::ConnectResponse& message : channel_->Take()) {
      if (message.has_assignment()) sent.push_back(message.assignment());
    }
    return sent;
  }
  v1::TaskResult Result(const v1::Assignment& summary, bool success, std::string output) {
    v1::TaskResult result;
    result.set_task_id(summary.task_id());
    result.set_lease_id(summary.lease_id());
    result.set_success(success);
    if (success) {
      result.set_output(std::move(output));
    } else {
      result.set_error(std::move(output));
    }
    return result;
  }

  ToolCallsFixture f_;
  std::string run_;
  std::shared_ptr<RecordingChannel> channel_ = std::make_shared<RecordingChannel>();
};

TEST_F(SummariesTest, TwoTasksOfOneWatermark_ParkOnOneJob) {
  EXPECT_EQ(Choose("b").kind, Kind::kParked);
  EXPECT_EQ(Choose("c").kind, Kind::kParked);
  std::vector<v1::Assignment> sent = SummariesSent();
  ASSERT_THAT(sent, SizeIs(1)) << "b and c wait for one summary";
  EXPECT_EQ(sent[0].role(), "summarizer");
  EXPECT_EQ(sent[0].agent(), "summarizer");
  EXPECT_TRUE(f_.workers().leases().Find(sent[0].lease_id())->task_id.empty());
  EXPECT_THAT(SummariesSent(), SizeIs(0));

  f_.tool_calls().prior_work().OnSummaryResult(Result(sent[0], true, "a read three files"));
  // The lease ended with its job; both tasks go with the narrative.
  EXPECT_EQ(f_.workers().leases().Find(sent[0].lease_id()), nullptr);
  for (const std::string task : {"b", "c"}) {
    PriorWorkSource::Choice choice = Choose(task);
    ASSERT_EQ(choice.kind, Kind::kSend) << task;
    EXPECT_EQ(choice.prior_work.narrative(), "a read three files") << task;
    EXPECT_THAT(choice.prior_work.observations(), SizeIs(1)) << task;
  }
}

TEST_F(SummariesTest, SummarizerFails_TheTaskParksOnceAndGoesOnWithTheReason) {
  ASSERT_EQ(Choose("b").kind, Kind::kParked);
  std::vector<v1::Assignment> sent = SummariesSent();
  ASSERT_THAT(sent, SizeIs(1));
  f_.tool_calls().prior_work().OnSummaryResult(Result(sent[0], false, "model down"));

  // Parked once already: not again, though no narrative exists.
  PriorWorkSource::Choice choice = Choose("b");
  ASSERT_EQ(choice.kind, Kind::kSend);
  EXPECT_THAT(choice.prior_work.meta().fallback_reason(),
              HasSubstr("summarizer failed: model down; older calls were left out"));
  EXPECT_TRUE(choice.prior_work.narrative().empty());
}

TEST_F(SummariesTest, SummarizersLeaseLost_ParkedTaskGoesOnWithTheReason) {
  ASSERT_EQ(Choose("b").kind, Kind::kParked);
  std::vector<v1::Assignment> sent = SummariesSent();
  ASSERT_THAT(sent, SizeIs(1));
  f_.workers().leases().End(sent[0].lease_id());
  PriorWorkSource::Choice choice = Choose("b");
  ASSERT_EQ(choice.kind, Kind::kSend);
  EXPECT_THAT(choice.prior_work.meta().fallback_reason(),
              HasSubstr("the summarizer's worker was lost"));
}

TEST_F(SummariesTest, SummaryHandedBack_TheJobGoesToTheNextWorker) {
  ASSERT_EQ(Choose("b").kind, Kind::kParked);
  std::vector<v1::Assignment> sent = SummariesSent();
  ASSERT_THAT(sent, SizeIs(1));
  f_.tool_calls().prior_work().OnSummaryReturned(sent[0].lease_id());
  EXPECT_EQ(f_.workers().leases().Find(sent[0].lease_id()), nullptr);
  std::vector<v1::Assignment> again = SummariesSent();
  ASSERT_THAT(again, SizeIs(1));
  EXPECT_NE(again[0].lease_id(), sent[0].lease_id());
  EXPECT_EQ(Choose("b").kind, Kind::kParked) << "still waiting for the job, not parked anew";
}

}  // namespace
}  // namespace taskboard::engine
