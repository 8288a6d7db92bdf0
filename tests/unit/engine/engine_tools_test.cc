// Tool calls through the engine: the observation ledger (events, GetTask,
// persistence), prior work selected at dispatch, and the shared tool cache
// (miss, hit, coalescing, promotion, restart) over the worker protocol.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kChain[] = R"({"name": "chain", "phases": [
    {"id": "a", "agent": "coder", "task": "explore"},
    {"id": "b", "agent": "coder", "task": "build on a", "dependsOn": ["a"]}]})";

constexpr char kTwoIndependent[] = R"({"name": "two", "phases": [
    {"id": "a", "agent": "coder", "task": "A"},
    {"id": "b", "agent": "coder", "task": "B"}]})";

constexpr char kReadArgs[] = R"({"path":"README.md"})";
constexpr char kReadResult[] = R"({"content":"# Taskboard"})";

v1::ToolDeclaration CacheableReadFile() {
  v1::ToolDeclaration tool;
  tool.set_name("read_file");
  tool.set_cacheable(true);
  tool.set_default_ttl_ms(60'000);
  return tool;
}

std::vector<v1::Observation> ObservationEvents(const std::vector<v1::RunEvent>& events) {
  std::vector<v1::Observation> observations;
  for (const v1::RunEvent& event : events) {
    if (event.has_observation()) observations.push_back(event.observation().observation());
  }
  return observations;
}

TEST(EngineTools, Observation_RecordedAsEventAndInGetTask) {
  EngineHarness h;
  std::string run = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Observe(w, a, "read_file", kReadArgs, kReadResult);
  h.Observe(w, a, "grep", R"({"q":"x"})", "", "", "grep: no such file");

  std::vector<v1::Observation> events = ObservationEvents(h.Events(run));
  ASSERT_THAT(events, SizeIs(2));
  EXPECT_EQ(events[0].seq(), 1);
  EXPECT_EQ(events[0].run_id(), run);
  EXPECT_EQ(events[0].task_id(), "a");
  EXPECT_EQ(events[0].tool_name(), "read_file");
  EXPECT_EQ(events[0].result_json(), kReadResult);
  EXPECT_EQ(events[0].duration_ms(), 7);
  EXPECT_EQ(events[1].seq(), 2);
  EXPECT_EQ(events[1].error(), "grep: no such file");
  EXPECT_TRUE(events[1].result_json().empty());

  v1::GetTaskResponse task = h.ReadTaskResponse(run, "a");
  ASSERT_THAT(task.tool_calls(), SizeIs(2));
  EXPECT_EQ(task.tool_calls(0).args_json(), kReadArgs);
  EXPECT_EQ(task.tool_calls(1).seq(), 2);
}

TEST(EngineTools, PriorWork_DependentTaskIsToldWhatItsDependencyFound) {
  EngineHarness h;
  std::string run = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  EXPECT_EQ(a.prior_work().meta().policy(), "declared_deps_only");
  EXPECT_EQ(a.prior_work().meta().available(), 0);
  h.Observe(w, a, "read_file", kReadArgs, kReadResult);
  h.Finish(w, a, true, "explored");

  v1::Assignment b = h.OnlyAssignment(w);
  ASSERT_EQ(b.task_id(), "b");
  ASSERT_THAT(b.prior_work().observations(), SizeIs(1));
  EXPECT_EQ(b.prior_work().observations(0).task_id(), "a");
  EXPECT_EQ(b.prior_work().observations(0).result_json(), kReadResult);
  EXPECT_EQ(b.prior_work().meta().selected(), 1);
  EXPECT_EQ(b.prior_work().meta().available(), 1);
  EXPECT_GT(b.prior_work().meta().tokens_approx(), 0);
  // GetTask shows what the dispatch carried.
  EXPECT_EQ(h.ReadTaskResponse(run, "b").prior_work().SerializeAsString(),
            b.prior_work().SerializeAsString());
}

TEST(EngineTools, PriorWork_FlowPolicyNoneSelectsNothing) {
  EngineHarness h;
  h.Submit(R"({"name": "quiet", "flowPolicy": "none", "phases": [
      {"id": "a", "agent": "coder", "task": "explore"},
      {"id": "b", "agent": "coder", "task": "next", "dependsOn": ["a"]}]})");
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Observe(w, a, "read_file", kReadArgs, kReadResult);
  h.Finish(w, a, true, "explored");
  v1::Assignment b = h.OnlyAssignment(w);
  EXPECT_THAT(b.prior_work().observations(), IsEmpty());
  EXPECT_EQ(b.prior_work().meta().policy(), "none");
  EXPECT_EQ(b.prior_work().meta().available(), 1);
}

TEST(EngineTools, Lookup_ToolTheWorkerDidNotDeclare_NotCacheable) {
  EngineHarness h;
  h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Lookup(w, a, "q1", "read_file", kReadArgs);
  std::vector<v1::ToolDecision> decisions = EngineHarness::Decisions(w.channel->Take());
  ASSERT_THAT(decisions, SizeIs(1));
  EXPECT_EQ(decisions[0].request_id(), "q1");
  EXPECT_EQ(decisions[0].outcome(), v1::ToolDecision::OUTCOME_NOT_CACHEABLE);
}

TEST(EngineTools, Lookup_CacheableTool_MissThenHitWithTheSourceTask) {
  EngineHarness h;
  std::string run = h.Submit(kTwoIndependent);
  TestWorker w = h.Connect("w1", {"coder"}, 2, {}, {CacheableReadFile()});
  std::vector<v1::Assignment> assignments = h.TakeAssignments(w);
  ASSERT_THAT(assignments, SizeIs(2));

  h.Lookup(w, assignments[0], "q1", "read_file", kReadArgs);
  std::vector<v1::ToolDecision> miss = EngineHarness::Decisions(w.channel->Take());
  ASSERT_THAT(miss, SizeIs(1));
  ASSERT_EQ(miss[0].outcome(), v1::ToolDecision::OUTCOME_MISS);
  ASSERT_FALSE(miss[0].call_id().empty());
  h.Observe(w, assignments[0], "read_file", kReadArgs, kReadResult, miss[0].call_id());

  h.clock().Advance(1'500);
  // Same arguments in another key order: the same call.
  h.Lookup(w, assignments[1], "q2", "read_file", R"({ "path" : "README.md" })");
  std::vector<v1::ToolDecision> hit = EngineHarness::Decisions(w.channel->Take());
  ASSERT_THAT(hit, SizeIs(1));
  EXPECT_EQ(hit[0].outcome(), v1::ToolDecision::OUTCOME_HIT);
  EXPECT_EQ(hit[0].result_json(), kReadResult);
  EXPECT_EQ(hit[0].cache_age_ms(), 1'500);
  EXPECT_EQ(hit[0].source_task().run_id(), run);
  EXPECT_EQ(hit[0].source_task().task_id(), assignments[0].task_id());
}

TEST(EngineTools, Lookup_IdenticalCallInFlight_WaiterGetsTheResultWhenItLands) {
  EngineHarness h;
  h.Submit(kTwoIndependent);
  TestWorker w1 = h.Connect("w1", {"coder"}, 1, {}, {CacheableReadFile()});
  TestWorker w2 = h.Connect("w2", {"coder"}, 1, {}, {CacheableReadFile()});
  v1::Assignment a = h.OnlyAssignment(w1);
  v1::Assignment b = h.OnlyAssignment(w2);

  h.Lookup(w1, a, "q1", "read_file", kReadArgs);
  std::vector<v1::ToolDecision> owner = EngineHarness::Decisions(w1.channel->Take());
  ASSERT_THAT(owner, SizeIs(1));
  ASSERT_EQ(owner[0].outcome(), v1::ToolDecision::OUTCOME_MISS);
  h.Lookup(w2, b, "q2", "read_file", kReadArgs);
  EXPECT_THAT(EngineHarness::Decisions(w2.channel->Take()), IsEmpty());

  h.Observe(w1, a, "read_file", kReadArgs, kReadResult, owner[0].call_id());
  std::vector<v1::ToolDecision> waited = EngineHarness::Decisions(w2.channel->Take());
  ASSERT_THAT(waited, SizeIs(1));
  EXPECT_EQ(waited[0].request_id(), "q2");
  EXPECT_EQ(waited[0].outcome(), v1::ToolDecision::OUTCOME_COALESCED);
  EXPECT_EQ(waited[0].result_json(), kReadResult);
  EXPECT_EQ(waited[0].source_task().task_id(), a.task_id());
}

TEST(EngineTools, Lookup_OwnerCallFails_OneWaiterIsPromotedToExecute) {
  EngineHarness h;
  h.Submit(kTwoIndependent);
  TestWorker w1 = h.Connect("w1", {"coder"}, 1, {}, {CacheableReadFile()});
  TestWorker w2 = h.Connect("w2", {"coder"}, 1, {}, {CacheableReadFile()});
  v1::Assignment a = h.OnlyAssignment(w1);
  v1::Assignment b = h.OnlyAssignment(w2);
  h.Lookup(w1, a, "q1", "read_file", kReadArgs);
  std::string call_id = EngineHarness::Decisions(w1.channel->Take()).at(0).call_id();
  h.Lookup(w2, b, "q2", "read_file", kReadArgs);

  h.Observe(w1, a, "read_file", kReadArgs, "", call_id, "disk on fire");
  std::vector<v1::ToolDecision> promoted = EngineHarness::Decisions(w2.channel->Take());
  ASSERT_THAT(promoted, SizeIs(1));
  EXPECT_EQ(promoted[0].request_id(), "q2");
  EXPECT_EQ(promoted[0].outcome(), v1::ToolDecision::OUTCOME_MISS);
  EXPECT_NE(promoted[0].call_id(), call_id);
}

TEST(EngineTools, Lookup_OwnerWorkerDisconnects_WaiterIsPromoted) {
  EngineHarness h;
  h.Submit(kTwoIndependent);
  TestWorker w1 = h.Connect("w1", {"coder"}, 1, {}, {CacheableReadFile()});
  TestWorker w2 = h.Connect("w2", {"coder"}, 1, {}, {CacheableReadFile()});
  v1::Assignment a = h.OnlyAssignment(w1);
  v1::Assignment b = h.OnlyAssignment(w2);
  h.Lookup(w1, a, "q1", "read_file", kReadArgs);
  h.Lookup(w2, b, "q2", "read_file", kReadArgs);
  w2.channel->Take();

  h.Disconnect(w1);
  std::vector<v1::ToolDecision> promoted = EngineHarness::Decisions(w2.channel->Take());
  ASSERT_THAT(promoted, SizeIs(1));
  EXPECT_EQ(promoted[0].outcome(), v1::ToolDecision::OUTCOME_MISS);
}

TEST(EngineTools, Observation_FromASupersededLease_IsNotRecorded) {
  EngineHarness h;
  std::string run = h.Submit(kChain);
  TestWorker w1 = h.Connect("w1", {"coder"});
  v1::Assignment stale = h.OnlyAssignment(w1);
  h.Advance(31'000);  // w1 sent no heartbeat: the lease is lost
  h.Observe(w1, stale, "read_file", kReadArgs, kReadResult);
  EXPECT_THAT(ObservationEvents(h.Events(run)), IsEmpty());
  EXPECT_THAT(h.ReadTaskResponse(run, "a").tool_calls(), IsEmpty());
}

TEST(EngineTools, Restart_LedgerContinuesItsSequenceAndCacheStillServes) {
  EngineHarness h;
  std::string run = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"}, 1, {}, {CacheableReadFile()});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Lookup(w, a, "q1", "read_file", kReadArgs);
  std::string call_id = EngineHarness::Decisions(w.channel->Take()).at(0).call_id();
  h.Observe(w, a, "read_file", kReadArgs, kReadResult, call_id);

  h.Restart();
  v1::HeldTask held;
  held.set_task_id(a.task_id());
  held.set_lease_id(a.lease_id());
  TestWorker again = h.Connect("w1", {"coder"}, 0, {held}, {CacheableReadFile()});
  again.channel->Take();
  h.Observe(again, a, "list_files", R"({"path":"."})", R"(["README.md"])");
  h.Finish(again, a, true, "explored");
  v1::Assignment b = h.OnlyAssignment(again);
  ASSERT_EQ(b.task_id(), "b");
  EXPECT_THAT(b.prior_work().observations(), SizeIs(2));
  EXPECT_EQ(b.prior_work().observations(1).seq(), 2);

  h.Lookup(again, b, "q2", "read_file", kReadArgs);
  std::vector<v1::ToolDecision> hit = EngineHarness::Decisions(again.channel->Take());
  ASSERT_THAT(hit, SizeIs(1));
  EXPECT_EQ(hit[0].outcome(), v1::ToolDecision::OUTCOME_HIT);
  EXPECT_EQ(hit[0].result_json(), kReadResult);
  EXPECT_THAT(ObservationEvents(h.Events(run)), SizeIs(2));
}

}  // namespace
}  // namespace taskboard::engine
