// Tool calls through the engine: the observation ledger (events, GetTask,
// persistence), prior work selected at dispatch, and the shared tool cache
// (miss, hit, coalescing, promotion, restart) over the worker protocol.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/tool_calls/policy_service_caller.h"
#include "tests/unit/engine/engine_harness.h"
#include "tests/unit/engine/read_file_calls.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::Held;
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

using ::taskboard::engine::testing::CacheableReadFile;
using ::taskboard::engine::testing::kReadArgs;
using ::taskboard::engine::testing::kReadResult;

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

// Two workers declaring a cacheable read_file, each running one of two
// independent tasks: the setting for calls that meet in the cache.
struct TwoWorkers {
  TwoWorkers() {
    h.Submit(kTwoIndependent);
    w1 = h.Connect("w1", {"coder"}, 1, {}, {CacheableReadFile()});
    w2 = h.Connect("w2", {"coder"}, 1, {}, {CacheableReadFile()});
    a = h.OnlyAssignment(w1);
    b = h.OnlyAssignment(w2);
  }
  EngineHarness h;
  TestWorker w1, w2;
  v1::Assignment a, b;
};

TEST(EngineTools, Lookup_IdenticalCallInFlight_WaiterGetsTheResultWhenItLands) {
  TwoWorkers t;
  auto& [h, w1, w2, a, b] = t;

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
  TwoWorkers t;
  auto& [h, w1, w2, a, b] = t;
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

// docs/tool-cache.md#when-an-executing-worker-is-out-of-touch: the owner's
// call is held for --tool-call-hold-ms (5 s by default), then a waiter runs it.
TEST(EngineTools, Lookup_OwnerWorkerDisconnects_WaiterIsPromotedWhenTheHoldEnds) {
  TwoWorkers t;
  auto& [h, w1, w2, a, b] = t;
  h.Lookup(w1, a, "q1", "read_file", kReadArgs);
  h.Lookup(w2, b, "q2", "read_file", kReadArgs);
  w2.channel->Take();

  h.Disconnect(w1);
  EXPECT_THAT(EngineHarness::Decisions(w2.channel->Take()), IsEmpty());
  h.Advance(4'900);
  EXPECT_THAT(EngineHarness::Decisions(w2.channel->Take()), IsEmpty());
  h.Advance(100);
  std::vector<v1::ToolDecision> promoted = EngineHarness::Decisions(w2.channel->Take());
  ASSERT_THAT(promoted, SizeIs(1));
  EXPECT_EQ(promoted[0].outcome(), v1::ToolDecision::OUTCOME_MISS);
}

// A stream blip: the owner comes back, announces the call it is still
// running and reports it; the waiter gets that result and never runs it.
TEST(EngineTools, Lookup_OwnerBlipsAndAnnouncesItsCall_WaiterGetsItsResult_RanOnce) {
  TwoWorkers t;
  auto& [h, w1, w2, a, b] = t;
  h.Lookup(w1, a, "q1", "read_file", kReadArgs);
  const std::string call_id = EngineHarness::Decisions(w1.channel->Take()).at(0).call_id();
  h.Lookup(w2, b, "q2", "read_file", kReadArgs);
  w2.channel->Take();

  h.Disconnect(w1);
  TestWorker back = h.Connect("w1", {"coder"}, 1, {Held(a)}, {CacheableReadFile()});
  h.Lookup(back, a, "again-1", "read_file", kReadArgs, /*announce=*/true);
  std::vector<v1::ToolDecision> owner = EngineHarness::Decisions(back.channel->Take());
  ASSERT_THAT(owner, SizeIs(1));
  EXPECT_EQ(owner[0].outcome(), v1::ToolDecision::OUTCOME_MISS);
  EXPECT_EQ(owner[0].call_id(), call_id);
  h.Advance(10'000);  // past the hold: nothing is promoted, the owner is back
  EXPECT_THAT(EngineHarness::Decisions(w2.channel->Take()), IsEmpty());

  h.Observe(back, a, "read_file", kReadArgs, kReadResult, call_id);
  std::vector<v1::ToolDecision> waited = EngineHarness::Decisions(w2.channel->Take());
  ASSERT_THAT(waited, SizeIs(1));
  EXPECT_EQ(waited[0].outcome(), v1::ToolDecision::OUTCOME_COALESCED);
  EXPECT_EQ(waited[0].result_json(), kReadResult);
}

// The owner's worker stays connected but goes silent past its lease (a hung
// tool): its lease ends, and the waiter is promoted instead of waiting on a
// call that will never be reported.
TEST(EngineTools, Lookup_OwnersLeaseExpires_WaiterIsPromoted) {
  TwoWorkers t;
  auto& [h, w1, w2, a, b] = t;
  h.Lookup(w1, a, "q1", "read_file", kReadArgs);
  h.Lookup(w2, b, "q2", "read_file", kReadArgs);
  w2.channel->Take();

  h.Advance(15'000);
  h.Heartbeat(w2, {b.lease_id()});
  h.Advance(15'500);  // w1's lease (30 s) is gone; w2's was renewed
  std::vector<v1::ToolDecision> promoted = EngineHarness::Decisions(w2.channel->Take());
  ASSERT_THAT(promoted, SizeIs(1));
  EXPECT_EQ(promoted[0].request_id(), "q2");
  EXPECT_EQ(promoted[0].outcome(), v1::ToolDecision::OUTCOME_MISS);
}

// After a reconnect a worker sends the observations of unacknowledged tasks
// again: one already recorded is dropped, a new one (another call, or the
// same arguments with another result) is recorded.
TEST(EngineTools, Observation_SentAgainAfterAReconnect_RecordedOnce) {
  EngineHarness h;
  std::string run = h.Submit(kChain);
  TestWorker w = h.Connect("w1", {"coder"});
  v1::Assignment a = h.OnlyAssignment(w);
  h.Observe(w, a, "read_file", kReadArgs, kReadResult, "c1");
  h.Observe(w, a, "read_file", kReadArgs, kReadResult, "c1");  // the same call, again
  h.Observe(w, a, "read_file", kReadArgs, R"({"content":"changed"})", "c2");
  // Calls not run for the cache are never sent twice: each is recorded.
  h.Observe(w, a, "list_files", R"({"path":"."})", "[]");
  h.Observe(w, a, "list_files", R"({"path":"."})", "[]");
  std::vector<v1::Observation> events = ObservationEvents(h.Events(run));
  ASSERT_THAT(events, SizeIs(4));
  EXPECT_EQ(events[1].result_json(), R"({"content":"changed"})");
  EXPECT_THAT(h.ReadTaskResponse(run, "a").tool_calls(), SizeIs(4));
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
  TestWorker again = h.Connect("w1", {"coder"}, 0, {Held(a)}, {CacheableReadFile()});
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

// A scheduler restart (or a takeover) forgets the calls in flight: a call
// made right after it waits for the hold, the worker that was running it
// announces it, and its result answers the waiter: the tool ran once.
TEST(EngineTools, Restart_CallerWaitsForTheAnnouncement_ToolRunsOnce) {
  TwoWorkers t;
  auto& [h, w1, w2, a, b] = t;
  h.Lookup(w1, a, "q1", "read_file", kReadArgs);
  const std::string old_call_id = EngineHarness::Decisions(w1.channel->Take()).at(0).call_id();

  h.Restart();
  TestWorker w2_again = h.Connect("w2", {"coder"}, 0, {Held(b)}, {CacheableReadFile()});
  w2_again.channel->Take();
  h.Lookup(w2_again, b, "q2", "read_file", kReadArgs);
  EXPECT_THAT(EngineHarness::Decisions(w2_again.channel->Take()), IsEmpty())
      << "a call right after a restart must wait for the workers' announcements";

  TestWorker w1_again = h.Connect("w1", {"coder"}, 0, {Held(a)}, {CacheableReadFile()});
  w1_again.channel->Take();
  h.Lookup(w1_again, a, "again-1", "read_file", kReadArgs, /*announce=*/true);
  std::vector<v1::ToolDecision> owner = EngineHarness::Decisions(w1_again.channel->Take());
  ASSERT_THAT(owner, SizeIs(1));
  EXPECT_EQ(owner[0].outcome(), v1::ToolDecision::OUTCOME_MISS);
  // The result may come under either id: the old scheduler's or the new one.
  h.Observe(w1_again, a, "read_file", kReadArgs, kReadResult, old_call_id);
  std::vector<v1::ToolDecision> waited = EngineHarness::Decisions(w2_again.channel->Take());
  ASSERT_THAT(waited, SizeIs(1));
  EXPECT_EQ(waited[0].request_id(), "q2");
  EXPECT_EQ(waited[0].outcome(), v1::ToolDecision::OUTCOME_COALESCED);
}

TEST(EngineTools, Restart_NobodyAnnounces_TheWaiterRunsItWhenTheHoldEnds) {
  TwoWorkers t;
  auto& [h, w1, w2, a, b] = t;
  h.Restart();
  TestWorker w2_again = h.Connect("w2", {"coder"}, 0, {Held(b)}, {CacheableReadFile()});
  w2_again.channel->Take();
  h.Lookup(w2_again, b, "q2", "read_file", kReadArgs);
  EXPECT_THAT(EngineHarness::Decisions(w2_again.channel->Take()), IsEmpty());
  h.Heartbeat(w2_again, {b.lease_id()});
  h.Advance(5'000);
  std::vector<v1::ToolDecision> promoted = EngineHarness::Decisions(w2_again.channel->Take());
  ASSERT_THAT(promoted, SizeIs(1));
  EXPECT_EQ(promoted[0].outcome(), v1::ToolDecision::OUTCOME_MISS);
}

// A PolicyService the test answers by hand.
class FakePolicyService final : public PolicyServiceCaller {
 public:
  struct Call {
    std::string address;
    v1::SelectPriorWorkRequest request;
    int64_t timeout_ms = 0;
    std::function<void(absl::StatusOr<v1::SelectPriorWorkResponse>)> done;
  };
  void Select(const std::string& address, v1::SelectPriorWorkRequest request, int64_t timeout_ms,
              std::function<void(absl::StatusOr<v1::SelectPriorWorkResponse>)> done) override {
    calls.push_back({address, std::move(request), timeout_ms, std::move(done)});
  }
  std::vector<Call> calls;
};

constexpr char kExternalChain[] = R"({"name": "external", "flowPolicy":
    {"type": "custom", "external": "127.0.0.1:9", "externalTimeoutMs": 1500}, "phases": [
    {"id": "a", "agent": "coder", "task": "explore"},
    {"id": "b", "agent": "coder", "task": "build on a", "dependsOn": ["a"]}]})";

// Runs `a` of kExternalChain to completion with two tool calls, answering
// a's own policy call with nothing; returns b's pending policy call.
class ExternalPolicyTest : public ::testing::Test {
 protected:
  ExternalPolicyTest() : h_(Options(&service_)) {}
  static EngineOptions Options(FakePolicyService* service) {
    EngineOptions options = EngineHarness::DefaultOptions();
    options.policy_service = service;
    return options;
  }
  void RunA() {
    run_ = h_.Submit(kExternalChain);
    w_ = h_.Connect("w1", {"coder"});
    ASSERT_THAT(service_.calls, SizeIs(1));
    EXPECT_THAT(h_.TakeAssignments(w_), IsEmpty()) << "sent before the PolicyService answered";
    service_.calls[0].done(v1::SelectPriorWorkResponse());
    h_.RunOnce();
    a_ = h_.OnlyAssignment(w_);
    h_.Observe(w_, a_, "read_file", kReadArgs, kReadResult);
    h_.Observe(w_, a_, "list_files", R"({"path":"."})", R"(["README.md"])");
    h_.Finish(w_, a_, true, "explored");
    ASSERT_THAT(service_.calls, SizeIs(2));
  }

  FakePolicyService service_;
  EngineHarness h_;
  std::string run_;
  TestWorker w_;
  v1::Assignment a_;
};

TEST_F(ExternalPolicyTest, AssignmentWaitsForTheServiceAndCarriesItsChoice) {
  RunA();
  const FakePolicyService::Call& call = service_.calls[1];
  EXPECT_EQ(call.address, "127.0.0.1:9");
  EXPECT_EQ(call.timeout_ms, 1500);
  EXPECT_EQ(call.request.task().task_id(), "b");
  EXPECT_THAT(call.request.task().deps(), ElementsAre("a"));
  EXPECT_THAT(call.request.ledger(), SizeIs(2));
  EXPECT_THAT(h_.TakeAssignments(w_), IsEmpty());

  v1::SelectPriorWorkResponse response;
  response.add_seqs(2);
  response.add_seqs(99);  // unknown: ignored
  response.set_narrative("a listed the repo");
  call.done(response);
  h_.RunOnce();
  v1::Assignment b = h_.OnlyAssignment(w_);
  ASSERT_THAT(b.prior_work().observations(), SizeIs(1));
  EXPECT_EQ(b.prior_work().observations(0).tool_name(), "list_files");
  EXPECT_EQ(b.prior_work().narrative(), "a listed the repo");
  EXPECT_EQ(b.prior_work().meta().policy(), "custom");
  EXPECT_EQ(h_.ReadTaskResponse(run_, "b").prior_work().meta().policy(), "custom");
}

// externalTimeoutMs past half the lease is capped there: the worker does
// not heartbeat a task it has not been sent, so a slower answer would cost
// the task its lease.
TEST(ExternalPolicy, DeadlineCappedAtHalfTheLease) {
  FakePolicyService service;
  EngineOptions options = EngineHarness::DefaultOptions();
  options.policy_service = &service;
  options.lease_timeout_ms = 2'000;
  EngineHarness h(options);
  h.Submit(kExternalChain);  // asks for 1500 ms
  h.Connect("w1", {"coder"});
  ASSERT_THAT(service.calls, SizeIs(1));
  EXPECT_EQ(service.calls[0].timeout_ms, 1'000);
}

// The task was cancelled while its assignment waited for the service: the
// worker never got it, and its slot credit comes back for the next task.
TEST_F(ExternalPolicyTest, LeaseEndsWhileWaiting_TheWorkersCreditComesBack) {
  RunA();
  ASSERT_TRUE(h_.Cancel(run_).ok());
  EXPECT_THAT(h_.TakeAssignments(w_), IsEmpty());
  service_.calls[1].done(v1::SelectPriorWorkResponse());
  h_.RunOnce();
  EXPECT_THAT(h_.TakeAssignments(w_), IsEmpty());

  // The one slot w1 has is free again: a new run's task is dispatched to it
  // (and waits for its own policy call) without w1 sending a credit.
  h_.Submit(kExternalChain);
  EXPECT_THAT(service_.calls, SizeIs(3));
}

TEST_F(ExternalPolicyTest, ServiceFails_DeclaredDepsFallbackWithTheReason) {
  RunA();
  service_.calls[1].done(absl::DeadlineExceededError("Deadline Exceeded"));
  h_.RunOnce();
  v1::Assignment b = h_.OnlyAssignment(w_);
  EXPECT_THAT(b.prior_work().observations(), SizeIs(2));
  EXPECT_EQ(b.prior_work().meta().policy(), "declared_deps_only");
  EXPECT_EQ(b.prior_work().meta().fallback_reason(),
            "PolicyService at 127.0.0.1:9: Deadline Exceeded");
}

TEST_F(ExternalPolicyTest, LeaseLostWhileWaiting_AnswerIsDropped) {
  RunA();
  h_.Advance(31'000);  // the worker went silent: b's lease expires
  service_.calls[1].done(v1::SelectPriorWorkResponse());
  h_.RunOnce();
  EXPECT_THAT(h_.TakeAssignments(w_), IsEmpty());
}

constexpr char kCompactFanOut[] = R"({"name": "compact", "flowPolicy":
    {"type": "compact", "recentN": 1, "summarizerAgent": "summarizer"}, "phases": [
    {"id": "a", "agent": "coder", "task": "explore"},
    {"id": "b", "agent": "coder", "task": "use it", "dependsOn": ["a"]},
    {"id": "c", "agent": "coder", "task": "use it too", "dependsOn": ["a"]}]})";

// Runs `a` of kCompactFanOut with three tool calls on a worker offering
// `agents`; returns the worker with whatever the batch after a sent.
TestWorker RunExplore(EngineHarness& h, const std::vector<std::string>& agents) {
  h.Submit(kCompactFanOut);
  TestWorker w = h.Connect("w1", agents, 3);
  v1::Assignment a = h.OnlyAssignment(w);
  h.Observe(w, a, "read_file", R"({"path":"a.md"})", R"({"content":"A"})");
  h.Observe(w, a, "read_file", R"({"path":"b.md"})", R"({"content":"B"})");
  h.Observe(w, a, "read_file", R"({"path":"c.md"})", R"({"content":"C"})");
  h.Finish(w, a, true, "explored");
  return w;
}

TEST(EngineCompact, OlderCallsAreSummarizedOnceThenBothTasksGetTheNarrative) {
  EngineHarness h;
  TestWorker w = RunExplore(h, {"coder", "summarizer"});
  std::vector<v1::Assignment> sent = h.TakeAssignments(w);
  ASSERT_THAT(sent, SizeIs(1)) << "b and c wait for one summary";
  const v1::Assignment& summary = sent[0];
  EXPECT_EQ(summary.role(), "summarizer");
  EXPECT_EQ(summary.agent(), "summarizer");
  EXPECT_THAT(summary.prompt(), ::testing::HasSubstr(R"(read_file({"path":"a.md"}))"));
  EXPECT_THAT(summary.prompt(), ::testing::HasSubstr(R"(read_file({"path":"b.md"}))"));
  EXPECT_THAT(summary.prompt(), ::testing::Not(::testing::HasSubstr("c.md")));

  h.Finish(w, summary, true, "a read a.md and b.md");
  std::vector<v1::Assignment> tasks = h.TakeAssignments(w);
  ASSERT_THAT(tasks, SizeIs(2));
  for (const v1::Assignment& task : tasks) {
    EXPECT_EQ(task.prior_work().narrative(), "a read a.md and b.md") << task.task_id();
    ASSERT_THAT(task.prior_work().observations(), SizeIs(1));
    EXPECT_EQ(task.prior_work().observations(0).seq(), 3);
    EXPECT_EQ(task.prior_work().meta().policy(), "compact");
    EXPECT_TRUE(task.prior_work().meta().fallback_reason().empty());
  }
}

TEST(EngineCompact, SummarizerPromptOverTheTextLimit_CoversTheOldestCallsThatFit) {
  // Each call's line is about 440 bytes and the instructions about 400: with
  // a 1,000-byte limit the summary holds the first call only.
  EngineOptions options = EngineHarness::DefaultOptions();
  options.limits.max_interpolated_bytes = 1'000;
  EngineHarness h(options);
  h.Submit(kCompactFanOut);
  TestWorker w = h.Connect("w1", {"coder", "summarizer"}, 3);
  v1::Assignment a = h.OnlyAssignment(w);
  const std::string body = absl::StrCat(R"({"content":")", std::string(400, 'x'), R"("})");
  for (const char* path : {"a.md", "b.md", "c.md"}) {
    h.Observe(w, a, "read_file", absl::StrCat(R"({"path":")", path, R"("})"), body);
  }
  h.Finish(w, a, true, "explored");

  const v1::Assignment summary = h.OnlyAssignment(w);
  EXPECT_LE(summary.prompt().size(), 1'000u);
  EXPECT_THAT(summary.prompt(), ::testing::HasSubstr("Tool calls 1-1:\n"));
  EXPECT_THAT(summary.prompt(), ::testing::HasSubstr("a.md"));
  EXPECT_THAT(summary.prompt(), ::testing::Not(::testing::HasSubstr("b.md")));
  EXPECT_EQ(summary.task_id(), "summary@1");

  // The tasks take that narrative; it lags the ledger by b.md, which the
  // next summary folds in.
  h.Finish(w, summary, true, "a read a.md");
  std::vector<v1::Assignment> tasks = h.TakeAssignments(w);
  ASSERT_THAT(tasks, SizeIs(2));
  for (const v1::Assignment& task : tasks) {
    EXPECT_EQ(task.prior_work().narrative(), "a read a.md") << task.task_id();
    ASSERT_THAT(task.prior_work().observations(), SizeIs(1));
    EXPECT_EQ(task.prior_work().observations(0).seq(), 3);
  }
}

TEST(EngineCompact, SummarizerFails_TasksGoOutWithTheWindowAndTheReason) {
  EngineHarness h;
  TestWorker w = RunExplore(h, {"coder", "summarizer"});
  v1::Assignment summary = h.OnlyAssignment(w);
  h.Finish(w, summary, false, "model overloaded");
  std::vector<v1::Assignment> tasks = h.TakeAssignments(w);
  ASSERT_THAT(tasks, SizeIs(2));
  EXPECT_TRUE(tasks[0].prior_work().narrative().empty());
  EXPECT_THAT(tasks[0].prior_work().observations(), SizeIs(1));
  EXPECT_EQ(tasks[0].prior_work().meta().fallback_reason(),
            "summarizer failed: model overloaded; older calls were left out");
}

TEST(EngineCompact, NoWorkerOffersTheSummarizer_TasksAreNotHeld) {
  EngineHarness h;
  TestWorker w = RunExplore(h, {"coder"});
  std::vector<v1::Assignment> tasks = h.TakeAssignments(w);
  ASSERT_THAT(tasks, SizeIs(2));
  EXPECT_THAT(tasks[0].prior_work().observations(), SizeIs(1));
  EXPECT_THAT(tasks[0].prior_work().meta().fallback_reason(),
              ::testing::HasSubstr("no worker offers summarizer agent 'summarizer'"));
}

TEST(EngineCompact, SummarizersWorkerLost_TasksGoOutWithTheReason) {
  // Only a worker that then goes silent offers the summarizer.
  EngineHarness h2;
  h2.Submit(kCompactFanOut);
  TestWorker coder = h2.Connect("coder", {"coder"}, 3);
  TestWorker silent = h2.Connect("silent", {"summarizer"}, 1);
  v1::Assignment a = h2.OnlyAssignment(coder);
  h2.Observe(coder, a, "read_file", R"({"path":"a.md"})", R"({"content":"A"})");
  h2.Observe(coder, a, "read_file", R"({"path":"b.md"})", R"({"content":"B"})");
  h2.Finish(coder, a, true, "explored");
  EXPECT_THAT(h2.TakeAssignments(coder), IsEmpty());
  ASSERT_THAT(h2.TakeAssignments(silent), SizeIs(1));
  h2.Heartbeat(coder, {});
  h2.Advance(31'000);  // the summarizer's lease expires
  std::vector<v1::Assignment> tasks = h2.TakeAssignments(coder);
  ASSERT_THAT(tasks, SizeIs(2));
  EXPECT_THAT(tasks[0].prior_work().meta().fallback_reason(),
              ::testing::HasSubstr("summarizer's worker was lost"));
}

}  // namespace
}  // namespace taskboard::engine
