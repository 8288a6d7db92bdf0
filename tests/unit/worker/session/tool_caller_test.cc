// The tool call path against a fake scheduler link: each ToolDecision
// outcome, the fallbacks (override, no stream, stream lost, timeout) and
// cancellation; every call that reaches a lookup is observed exactly once.

#include "worker/session/tool_caller.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/worker/session/fake_tool_link.h"
#include "tests/unit/worker/tools/test_tools.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::taskboard::worker::testing::CountingTool;
using ::taskboard::worker::testing::FakeToolLink;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

class ToolCallerTest : public ::testing::Test {
 protected:
  ToolCallerTest() {
    auto tool = std::make_unique<CountingTool>("echo");
    tool_ = tool.get();
    EXPECT_THAT(registry_.Add(std::move(tool)), IsOk());
    Recreate({});
  }

  void Recreate(ToolCallerOptions options) {
    caller_ = std::make_unique<ToolCaller>(registry_, link_, options);
    link_.set_caller(caller_.get());
  }

  ToolTask Task() {
    ToolTask task;
    task.task_id = "scan";
    task.lease_id = "l1";
    task.workdir = "/work/repo";
    task.cancel = &cancel_;
    return task;
  }

  absl::StatusOr<ToolCallResult> Call(const std::string& args = R"({"path":"a.txt"})") {
    return caller_->Call(Task(), "echo", args);
  }

  // The one observation made so far.
  v1::ToolObservation OnlyObservation() {
    std::vector<v1::ToolObservation> observations = link_.observations();
    EXPECT_THAT(observations, SizeIs(1));
    return observations.empty() ? v1::ToolObservation() : observations[0];
  }

  static v1::ToolDecision Cached(v1::ToolDecision::Outcome outcome) {
    v1::ToolDecision decision;
    decision.set_outcome(outcome);
    decision.set_result_json(R"({"cached":"yes"})");
    decision.set_cache_age_ms(1234);
    decision.mutable_source_task()->set_run_id("r0");
    decision.mutable_source_task()->set_task_id("earlier");
    return decision;
  }

  ToolRegistry registry_;
  CountingTool* tool_;
  FakeToolLink link_;
  CancelToken cancel_;
  std::unique_ptr<ToolCaller> caller_;
};

TEST_F(ToolCallerTest, Lookup_CarriesTaskLeaseToolAndCanonicalArgs) {
  link_.AnswerWith(v1::ToolDecision::OUTCOME_NOT_CACHEABLE);
  ASSERT_THAT(Call(R"({ "b": 1, "a": [1.0, {"y": 2, "x": 1}] })"), IsOk());
  ASSERT_THAT(link_.lookups(), SizeIs(1));
  const v1::ToolLookup lookup = link_.lookups()[0];
  EXPECT_FALSE(lookup.request_id().empty());
  EXPECT_EQ(lookup.task_id(), "scan");
  EXPECT_EQ(lookup.lease_id(), "l1");
  EXPECT_EQ(lookup.tool_name(), "echo");
  EXPECT_EQ(lookup.args_json(), R"({"a":[1,{"x":1,"y":2}],"b":1})");
  EXPECT_EQ(OnlyObservation().args_json(), lookup.args_json());
}

TEST_F(ToolCallerTest, Hit_ServesTheCachedResultWithoutExecuting) {
  link_.AnswerWith(Cached(v1::ToolDecision::OUTCOME_HIT));
  absl::StatusOr<ToolCallResult> result = Call();
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->result_json, R"({"cached":"yes"})");
  EXPECT_TRUE(result->cached);
  EXPECT_EQ(result->cache_age_ms, 1234);
  EXPECT_EQ(result->source_task.task_id(), "earlier");
  EXPECT_EQ(tool_->executions(), 0);

  const v1::ToolObservation observation = OnlyObservation();
  EXPECT_EQ(observation.task_id(), "scan");
  EXPECT_EQ(observation.lease_id(), "l1");
  EXPECT_EQ(observation.tool_name(), "echo");
  EXPECT_EQ(observation.result_json(), R"({"cached":"yes"})");
  EXPECT_TRUE(observation.error().empty());
  EXPECT_TRUE(observation.cached());
  EXPECT_EQ(observation.cache_age_ms(), 1234);
  EXPECT_EQ(observation.source_task().run_id(), "r0");
  EXPECT_EQ(observation.source_task().task_id(), "earlier");
  EXPECT_TRUE(observation.call_id().empty());
}

TEST_F(ToolCallerTest, Coalesced_ServesTheInFlightResultWithoutExecuting) {
  link_.AnswerWith(Cached(v1::ToolDecision::OUTCOME_COALESCED));
  absl::StatusOr<ToolCallResult> result = Call();
  ASSERT_THAT(result, IsOk());
  EXPECT_TRUE(result->cached);
  EXPECT_EQ(result->result_json, R"({"cached":"yes"})");
  EXPECT_EQ(tool_->executions(), 0);
  const v1::ToolObservation observation = OnlyObservation();
  EXPECT_TRUE(observation.cached());
  EXPECT_EQ(observation.source_task().task_id(), "earlier");
}

TEST_F(ToolCallerTest, Miss_ExecutesAndObservesWithTheCallId) {
  v1::ToolDecision miss;
  miss.set_outcome(v1::ToolDecision::OUTCOME_MISS);
  miss.set_call_id("call-7");
  link_.AnswerWith(miss);
  absl::StatusOr<ToolCallResult> result = Call();
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->result_json, R"({"echo":{"path":"a.txt"}})");
  EXPECT_FALSE(result->cached);
  EXPECT_EQ(tool_->executions(), 1);
  EXPECT_EQ(tool_->last_workdir(), "/work/repo");
  const v1::ToolObservation observation = OnlyObservation();
  EXPECT_EQ(observation.call_id(), "call-7");
  EXPECT_EQ(observation.result_json(), R"({"echo":{"path":"a.txt"}})");
  EXPECT_FALSE(observation.cached());
  EXPECT_GE(observation.duration_ms(), 0);
}

TEST_F(ToolCallerTest, NotCacheable_ExecutesAndObservesWithoutCallId) {
  link_.AnswerWith(v1::ToolDecision::OUTCOME_NOT_CACHEABLE);
  absl::StatusOr<ToolCallResult> result = Call();
  ASSERT_THAT(result, IsOk());
  EXPECT_FALSE(result->cached);
  EXPECT_EQ(tool_->executions(), 1);
  const v1::ToolObservation observation = OnlyObservation();
  EXPECT_TRUE(observation.call_id().empty());
  EXPECT_FALSE(observation.cached());
  EXPECT_EQ(observation.result_json(), R"({"echo":{"path":"a.txt"}})");
}

TEST_F(ToolCallerTest, ToolError_ReturnedAndObservedAsTheError) {
  tool_->fail = "file 'a.txt' does not exist";
  link_.AnswerWith(v1::ToolDecision::OUTCOME_MISS);
  EXPECT_THAT(Call(), StatusIs(absl::StatusCode::kUnknown, "file 'a.txt' does not exist"));
  const v1::ToolObservation observation = OnlyObservation();
  EXPECT_EQ(observation.error(), "file 'a.txt' does not exist");
  EXPECT_TRUE(observation.result_json().empty());
}

TEST_F(ToolCallerTest, CacheOverrideFalse_DoesNotAskButStillObserves) {
  ToolTask task = Task();
  task.cache_overrides["echo"] = false;
  link_.AnswerWith(Cached(v1::ToolDecision::OUTCOME_HIT));
  absl::StatusOr<ToolCallResult> result = caller_->Call(task, "echo", "{}");
  ASSERT_THAT(result, IsOk());
  EXPECT_FALSE(result->cached);
  EXPECT_THAT(link_.lookups(), IsEmpty());
  EXPECT_EQ(tool_->executions(), 1);
  EXPECT_TRUE(OnlyObservation().call_id().empty());
}

TEST_F(ToolCallerTest, CacheOverrideTrue_AsksTheCache) {
  ToolTask task = Task();
  task.cache_overrides["echo"] = true;
  link_.AnswerWith(Cached(v1::ToolDecision::OUTCOME_HIT));
  ASSERT_THAT(caller_->Call(task, "echo", "{}"), IsOk());
  EXPECT_THAT(link_.lookups(), SizeIs(1));
  EXPECT_EQ(tool_->executions(), 0);
}

// No stream for longer than reconnect_wait: the call runs uncached rather
// than fail.
TEST_F(ToolCallerTest, NoStreamPastTheReconnectWait_ExecutesUncachedAndObserves) {
  Recreate({.reconnect_wait = absl::Milliseconds(100)});
  link_.Disconnect();
  absl::StatusOr<ToolCallResult> result = Call();
  ASSERT_THAT(result, IsOk());
  EXPECT_FALSE(result->cached);
  EXPECT_EQ(tool_->executions(), 1);
  EXPECT_TRUE(OnlyObservation().call_id().empty());
}

// A call made while the worker reconnects (a scheduler restart) waits for
// the stream and asks the cache then, instead of running a call the cache
// may hold.
TEST_F(ToolCallerTest, NoStream_AsksTheCacheOnceTheStreamIsBack) {
  link_.Disconnect();
  absl::StatusOr<ToolCallResult> result;
  std::thread call([&] { result = Call(); });
  ASSERT_TRUE(link_.WaitForLookup(0).has_value());  // tried, no stream
  link_.AnswerWith(Cached(v1::ToolDecision::OUTCOME_HIT));
  link_.Reconnect();
  call.join();
  ASSERT_THAT(result, IsOk());
  EXPECT_TRUE(result->cached);
  EXPECT_EQ(tool_->executions(), 0);
  EXPECT_TRUE(OnlyObservation().cached());
}

// The stream ended before the decision came: the call asks again on the
// next stream.
TEST_F(ToolCallerTest, StreamLostWhileWaiting_AsksAgainOnTheNextStream) {
  link_.Hold();
  absl::StatusOr<ToolCallResult> result;
  std::thread call([&] { result = Call(); });
  ASSERT_TRUE(link_.WaitForLookup(0).has_value());
  caller_->OnStreamLost();
  std::optional<v1::ToolLookup> again = link_.WaitForLookup(1);
  ASSERT_TRUE(again.has_value());
  v1::ToolDecision hit = Cached(v1::ToolDecision::OUTCOME_HIT);
  hit.set_request_id(again->request_id());
  caller_->OnDecision(hit);
  call.join();
  ASSERT_THAT(result, IsOk());
  EXPECT_TRUE(result->cached);
  EXPECT_EQ(tool_->executions(), 0);
}

TEST_F(ToolCallerTest, StreamLostAndNoneBackInTime_ExecutesUncachedAndObserves) {
  Recreate({.reconnect_wait = absl::Milliseconds(100)});
  link_.Hold();
  absl::StatusOr<ToolCallResult> result;
  std::thread call([&] { result = Call(); });
  ASSERT_TRUE(link_.WaitForLookup(0).has_value());
  link_.Disconnect();
  caller_->OnStreamLost();
  call.join();
  ASSERT_THAT(result, IsOk());
  EXPECT_FALSE(result->cached);
  EXPECT_EQ(tool_->executions(), 1);
  EXPECT_TRUE(OnlyObservation().call_id().empty());
}

TEST_F(ToolCallerTest, NoDecisionInTime_ExecutesUncached) {
  Recreate({.decision_timeout = absl::Milliseconds(50)});
  link_.Hold();
  ASSERT_THAT(Call(), IsOk());
  EXPECT_EQ(tool_->executions(), 1);
  EXPECT_THAT(link_.observations(), SizeIs(1));
}

TEST_F(ToolCallerTest, CancelledWhileWaiting_CancelledAndObservedAsTheError) {
  link_.Hold();
  absl::StatusOr<ToolCallResult> result;
  std::thread call([&] { result = Call(); });
  ASSERT_TRUE(link_.WaitForLookup(0).has_value());
  cancel_.Cancel("run cancelled");
  call.join();
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kCancelled, "cancelled: run cancelled"));
  EXPECT_EQ(tool_->executions(), 0);
  EXPECT_EQ(OnlyObservation().error(), "cancelled: run cancelled");
}

TEST_F(ToolCallerTest, ConcurrentCalls_EachGetsItsOwnDecision) {
  link_.Hold();
  absl::StatusOr<ToolCallResult> first, second;
  std::thread one([&] { first = Call(R"({"n":1})"); });
  ASSERT_TRUE(link_.WaitForLookup(0).has_value());
  std::thread two([&] { second = Call(R"({"n":2})"); });
  ASSERT_TRUE(link_.WaitForLookup(1).has_value());
  const std::vector<v1::ToolLookup> lookups = link_.lookups();
  EXPECT_NE(lookups[0].request_id(), lookups[1].request_id());

  v1::ToolDecision hit = Cached(v1::ToolDecision::OUTCOME_HIT);
  hit.set_request_id(lookups[1].request_id());
  caller_->OnDecision(hit);
  two.join();
  v1::ToolDecision miss;
  miss.set_request_id(lookups[0].request_id());
  miss.set_outcome(v1::ToolDecision::OUTCOME_MISS);
  caller_->OnDecision(miss);
  one.join();

  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(first->result_json, R"({"echo":{"n":1}})");
  EXPECT_TRUE(second->cached);
  EXPECT_EQ(tool_->executions(), 1);
  EXPECT_THAT(link_.observations(), SizeIs(2));
}

TEST_F(ToolCallerTest, UnknownTool_NotFoundAndNeitherAskedNorObserved) {
  EXPECT_THAT(caller_->Call(Task(), "nope", "{}"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("this worker offers: echo")));
  EXPECT_THAT(link_.lookups(), IsEmpty());
  EXPECT_THAT(link_.observations(), IsEmpty());
}

TEST_F(ToolCallerTest, ToolOutsideTheAllowList_RefusedNamingTheAllowedAndNeitherRunNorObserved) {
  ToolTask task = Task();
  const std::vector<std::string> phase_tools = {"read_file", "list_files"};
  task.allowed = ToolAllowList(phase_tools, std::vector<std::string>{});
  EXPECT_THAT(caller_->Call(task, "echo", "{}"),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("tool 'echo' is not allowed for this task (its allowed tools: "
                                 "list_files, read_file;")));
  EXPECT_EQ(tool_->executions(), 0);
  EXPECT_THAT(link_.lookups(), IsEmpty());
  EXPECT_THAT(link_.observations(), IsEmpty());
}

TEST_F(ToolCallerTest, AllowList_PhaseNarrowsTheAgentsButNeverWidensIt) {
  const std::vector<std::string> agent_tools = {"read_file"};
  ToolTask task = Task();
  task.allowed = ToolAllowList(std::vector<std::string>{"echo"}, agent_tools);
  EXPECT_THAT(caller_->Call(task, "echo", "{}"),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("allowed tools: none")));
  link_.AnswerWith(v1::ToolDecision::OUTCOME_NOT_CACHEABLE);
  task.allowed = ToolAllowList(std::vector<std::string>{}, std::vector<std::string>{"echo"});
  EXPECT_THAT(caller_->Call(task, "echo", "{}"), IsOk());
  task.allowed = ToolAllowList(std::vector<std::string>{"echo"}, std::vector<std::string>{"echo"});
  EXPECT_THAT(caller_->Call(task, "echo", "{}"), IsOk());
  EXPECT_EQ(tool_->executions(), 2);
}

TEST_F(ToolCallerTest, ArgsNotAnObject_InvalidArgumentAndNotObserved) {
  EXPECT_THAT(Call("[1]"), StatusIs(absl::StatusCode::kInvalidArgument,
                                    HasSubstr("must be a JSON object, got [1]")));
  EXPECT_THAT(Call("{oops"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(link_.observations(), IsEmpty());
}

TEST_F(ToolCallerTest, EmptyArgs_MeanAnEmptyObject) {
  link_.AnswerWith(v1::ToolDecision::OUTCOME_NOT_CACHEABLE);
  ASSERT_THAT(Call(""), IsOk());
  EXPECT_EQ(OnlyObservation().args_json(), "{}");
}

TEST_F(ToolCallerTest, DecisionForAnUnknownRequest_Ignored) {
  v1::ToolDecision stray;
  stray.set_request_id("nobody");
  caller_->OnDecision(stray);
  link_.AnswerWith(v1::ToolDecision::OUTCOME_NOT_CACHEABLE);
  EXPECT_THAT(Call(), IsOk());
}

}  // namespace
}  // namespace taskboard::worker

namespace taskboard::worker {
namespace {

// A call this worker is running for the cache is announced again after a
// reconnect (a restarted scheduler forgot it was in flight); the new call id
// it gets is the one its result is reported under.
TEST_F(ToolCallerTest, ExecutingCall_ReannouncedAndReportedUnderTheNewCallId) {
  tool_->block_until_cancelled = true;
  v1::ToolDecision miss;
  miss.set_outcome(v1::ToolDecision::OUTCOME_MISS);
  miss.set_call_id("c1");
  link_.AnswerWith(miss);
  std::thread call([&] { (void)Call(); });
  for (auto deadline = absl::Now() + absl::Seconds(10);
       tool_->executions() == 0 && absl::Now() < deadline;) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  ASSERT_EQ(tool_->executions(), 1);

  std::vector<v1::ConnectRequest> again = caller_->ReannounceExecutingCalls();
  ASSERT_THAT(again, SizeIs(1));
  const v1::ToolLookup& lookup = again[0].tool_lookup();
  EXPECT_EQ(lookup.task_id(), "scan");
  EXPECT_EQ(lookup.lease_id(), "l1");
  EXPECT_EQ(lookup.tool_name(), "echo");
  EXPECT_EQ(lookup.args_json(), R"({"path":"a.txt"})");
  v1::ToolDecision renewed = miss;
  renewed.set_request_id(lookup.request_id());
  renewed.set_call_id("c2");
  caller_->OnDecision(renewed);

  cancel_.Cancel("done waiting");
  call.join();
  EXPECT_EQ(OnlyObservation().call_id(), "c2");
  EXPECT_THAT(caller_->ReannounceExecutingCalls(), IsEmpty()) << "it finished";
}

}  // namespace
}  // namespace taskboard::worker
