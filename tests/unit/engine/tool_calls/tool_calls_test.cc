// ToolCalls on its own: lookups and observations of two workers holding
// tasks of one run under their leases, over the real workers' side
// (tool_calls/tool_calls.h).

#include "scheduler/engine/tool_calls/tool_calls.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/run_reader.h"
#include "tests/unit/engine/read_file_calls.h"
#include "tests/unit/engine/recording_channel.h"
#include "tests/unit/engine/tool_calls/tool_calls_fixture.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::kReadArgs;
using ::taskboard::engine::testing::kReadResult;
using ::taskboard::engine::testing::RecordingChannel;
using ::taskboard::engine::testing::ToolCallsFixture;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// `a` may call list_files and grep only; `b` and `c` any tool.
constexpr char kThreeTasks[] = R"({"name": "three", "phases": [
    {"id": "a", "agent": "coder", "task": "A", "tools": ["list_files", "grep"]},
    {"id": "b", "agent": "coder", "task": "B"},
    {"id": "c", "agent": "coder", "task": "C"}]})";

class ToolCallsTest : public ::testing::Test {
 protected:
  // w1 (stream 1) runs a and b under lease-a and lease-b, w2 (stream 2)
  // runs c under lease-c; both declare read_file cacheable.
  ToolCallsTest() {
    run_id_ = f_.runs().Start(kThreeTasks);
    f_.Connect(1, "w1", channel1_);
    f_.Connect(2, "w2", channel2_);
    f_.Dispatch(run_id_, "a", "lease-a", "w1", 1);
    f_.Dispatch(run_id_, "b", "lease-b", "w1", 1);
    f_.Dispatch(run_id_, "c", "lease-c", "w2", 2);
    f_.Commit();
  }

  // Asks on `stream_id`, commits.
  void Lookup(uint64_t stream_id, const std::string& task_id, const std::string& lease_id,
              const std::string& request_id) {
    v1::ToolLookup lookup;
    lookup.set_request_id(request_id);
    lookup.set_task_id(task_id);
    lookup.set_lease_id(lease_id);
    lookup.set_tool_name("read_file");
    lookup.set_args_json(kReadArgs);
    tool_calls_.OnLookup(*f_.workers().streams().Find(stream_id), lookup);
    f_.Commit();
  }
  // Reports a call on `stream_id`, commits.
  void Observe(uint64_t stream_id, const std::string& task_id, const std::string& lease_id,
               const std::string& tool, const std::string& call_id) {
    v1::ToolObservation observation;
    observation.set_task_id(task_id);
    observation.set_lease_id(lease_id);
    observation.set_tool_name(tool);
    observation.set_args_json(kReadArgs);
    observation.set_result_json(kReadResult);
    observation.set_duration_ms(7);
    observation.set_call_id(call_id);
    tool_calls_.OnObservation(*f_.workers().streams().Find(stream_id), observation);
    f_.Commit();
  }
  static std::vector<v1::ToolDecision> Decisions(RecordingChannel& channel) {
    std::vector<v1::ToolDecision> decisions;
    for (const v1::ConnectResponse& message : channel.Take()) {
      if (message.has_tool_decision()) decisions.push_back(message.tool_decision());
    }
    return decisions;
  }
  // What the store holds of task `task_id`'s calls (GetTask's tool_calls).
  std::vector<v1::Observation> Recorded(const std::string& task_id) {
    v1::GetTaskResponse response;
    absl::Status read = ReadTaskToolWork(f_.runs().store(), run_id_, task_id, response);
    EXPECT_TRUE(read.ok()) << read;
    return {response.tool_calls().begin(), response.tool_calls().end()};
  }

  ToolCallsFixture f_;
  ToolCalls& tool_calls_ = f_.tool_calls();
  LeaseKeeper& leases_ = f_.workers().leases();
  std::string run_id_;
  std::shared_ptr<RecordingChannel> channel1_ = std::make_shared<RecordingChannel>();
  std::shared_ptr<RecordingChannel> channel2_ = std::make_shared<RecordingChannel>();
};

TEST_F(ToolCallsTest, LeaseEnds_CallInFlight_WaiterIsPromoted) {
  Lookup(1, "b", "lease-b", "q1");
  std::vector<v1::ToolDecision> owner = Decisions(*channel1_);
  ASSERT_THAT(owner, SizeIs(1));
  ASSERT_EQ(owner[0].outcome(), v1::ToolDecision::OUTCOME_MISS);
  Lookup(2, "c", "lease-c", "q2");
  EXPECT_THAT(Decisions(*channel2_), IsEmpty());  // waits for q1's call

  // The owner's lease ends (lost, cancelled) before it reports the call.
  leases_.End("lease-b");
  f_.Commit();
  // The waiter's worker is still connected: it runs the call itself.
  std::vector<v1::ToolDecision> promoted = Decisions(*channel2_);
  ASSERT_THAT(promoted, SizeIs(1));
  EXPECT_EQ(promoted[0].request_id(), "q2");
  EXPECT_EQ(promoted[0].outcome(), v1::ToolDecision::OUTCOME_MISS);
  EXPECT_NE(promoted[0].call_id(), owner[0].call_id());
}

TEST_F(ToolCallsTest, Lookup_ToolTheTaskMayNotCall_NotCacheable) {
  Lookup(1, "a", "lease-a", "q1");
  std::vector<v1::ToolDecision> decisions = Decisions(*channel1_);
  ASSERT_THAT(decisions, SizeIs(1));
  EXPECT_EQ(decisions[0].outcome(), v1::ToolDecision::OUTCOME_NOT_CACHEABLE);
}

TEST_F(ToolCallsTest, Observation_ToolTheTaskMayNotCall_RecordedAsAnError) {
  Observe(1, "a", "lease-a", "read_file", "");
  std::vector<v1::Observation> recorded = Recorded("a");
  ASSERT_THAT(recorded, SizeIs(1));
  EXPECT_EQ(recorded[0].tool_name(), "read_file");
  EXPECT_TRUE(recorded[0].result_json().empty());
  EXPECT_THAT(recorded[0].error(), HasSubstr("refused by the scheduler"));
  // An allowed tool's result is kept.
  Observe(1, "a", "lease-a", "grep", "");
  recorded = Recorded("a");
  ASSERT_THAT(recorded, SizeIs(2));
  EXPECT_EQ(recorded[1].result_json(), kReadResult);
  EXPECT_TRUE(recorded[1].error().empty());
}

TEST_F(ToolCallsTest, Observation_SameCallResentAfterAReconnect_RecordedOnce) {
  Lookup(2, "b", "lease-b", "q1");
  std::string call_id = Decisions(*channel2_).at(0).call_id();
  Observe(2, "b", "lease-b", "read_file", call_id);
  // The worker reconnects and sends the unacknowledged task's calls again.
  Observe(2, "b", "lease-b", "read_file", call_id);
  EXPECT_THAT(Recorded("b"), SizeIs(1));
  // Under a lease that is no longer current nothing is recorded.
  leases_.End("lease-b");
  Observe(2, "b", "lease-b", "read_file", "other-call");
  EXPECT_THAT(Recorded("b"), SizeIs(1));
}

TEST_F(ToolCallsTest, CacheStats_CountTheEntryAndItsLookups) {
  Lookup(2, "b", "lease-b", "q1");
  Observe(2, "b", "lease-b", "read_file", Decisions(*channel2_).at(0).call_id());
  const v1::GetCacheStatsResponse stats = tool_calls_.CacheStats(std::nullopt);
  EXPECT_EQ(stats.entries(), 1);
  ASSERT_THAT(stats.rows(), SizeIs(1));
  EXPECT_EQ(stats.rows(0).tool(), "read_file");
  EXPECT_EQ(stats.rows(0).misses(), 1);
}

}  // namespace
}  // namespace taskboard::engine
