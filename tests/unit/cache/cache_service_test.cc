#include "scheduler/cache/cache_service.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/store/memory_store.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::cache {
namespace {

using ::taskboard::testing::IsOk;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

using Outcome = Decision::Outcome;

constexpr absl::string_view kArgs = R"({"path":"README.md"})";

class ToolCacheServiceTest : public ::testing::Test {
 protected:
  ToolCacheServiceTest() {
    decl_.set_name("read_file");
    decl_.set_cacheable(true);
  }

  CallContext Ctx(absl::string_view worker = "w1", absl::string_view run = "run-1",
                  absl::string_view root = "", absl::string_view session = "",
                  absl::string_view tenant = "acme") {
    return CallContext{.tenant = std::string(tenant),
                       .run_id = std::string(run),
                       .root_run_id = std::string(root),
                       .session_id = std::string(session),
                       .worker_id = std::string(worker),
                       .decl = &decl_,
                       .flow_cfg = &flow_};
  }

  static v1::ToolLookup Lookup(absl::string_view request_id, absl::string_view args = kArgs) {
    v1::ToolLookup lookup;
    lookup.set_request_id(std::string(request_id));
    lookup.set_task_id(absl::StrCat("task-", request_id));
    lookup.set_lease_id(absl::StrCat("lease-", request_id));
    lookup.set_tool_name("read_file");
    lookup.set_args_json(std::string(args));
    return lookup;
  }

  Decision Decide(const CallContext& ctx, const v1::ToolLookup& lookup) {
    return service_.Decide(ctx, lookup, now_);
  }

  // The worker behind `lookup` reports the call it executed under `call_id`;
  // the batch is committed like the engine would.
  std::vector<Answer> Report(const CallContext& ctx, const v1::ToolLookup& lookup,
                             absl::string_view call_id, absl::string_view result_json,
                             absl::string_view error = "") {
    v1::ToolObservation observation;
    observation.set_task_id(lookup.task_id());
    observation.set_lease_id(lookup.lease_id());
    observation.set_call_id(std::string(call_id));
    observation.set_tool_name(lookup.tool_name());
    observation.set_args_json(lookup.args_json());
    observation.set_result_json(std::string(result_json));
    observation.set_error(std::string(error));
    store::WriteBatch batch;
    std::vector<Answer> answers = service_.Record(ctx, observation, now_, &batch);
    EXPECT_THAT(store_.Write(batch), IsOk());
    return answers;
  }

  // Looks up, executes (on a miss) and reports `result_json`.
  void Seed(const CallContext& ctx, absl::string_view request_id, absl::string_view result_json,
            absl::string_view args = kArgs) {
    const v1::ToolLookup lookup = Lookup(request_id, args);
    Decision decision = Decide(ctx, lookup);
    ASSERT_EQ(decision.outcome, Outcome::kMiss);
    EXPECT_THAT(Report(ctx, lookup, decision.reply.call_id(), result_json), IsEmpty());
  }

  static std::vector<std::string> Requests(const std::vector<Answer>& answers) {
    std::vector<std::string> out;
    for (const Answer& answer : answers) out.push_back(answer.decision.request_id());
    return out;
  }

  store::MemoryStore store_;
  v1::ToolDeclaration decl_;
  v1::ToolCacheConfig flow_;
  ToolCacheService service_{"c"};
  int64_t now_ = 1'000'000;
};

TEST_F(ToolCacheServiceTest, ToolNotCacheable_NotCacheableAndNothingStored) {
  decl_.set_cacheable(false);
  const v1::ToolLookup lookup = Lookup("r1");
  Decision decision = Decide(Ctx(), lookup);
  EXPECT_EQ(decision.outcome, Outcome::kNotCacheable);
  EXPECT_EQ(decision.reply.outcome(), v1::ToolDecision::OUTCOME_NOT_CACHEABLE);
  EXPECT_EQ(decision.reply.request_id(), "r1");
  EXPECT_EQ(decision.reply.call_id(), "");
  EXPECT_THAT(Report(Ctx(), lookup, "", "\"text\""), IsEmpty());
  EXPECT_EQ(service_.counters().entries, 0);
  EXPECT_EQ(service_.counters().not_cacheable, 1);
}

TEST_F(ToolCacheServiceTest, Miss_ThenReport_NextLookupHitsWithAgeAndSource) {
  const v1::ToolLookup first = Lookup("r1");
  Decision miss = Decide(Ctx(), first);
  EXPECT_EQ(miss.outcome, Outcome::kMiss);
  EXPECT_EQ(miss.reply.outcome(), v1::ToolDecision::OUTCOME_MISS);
  EXPECT_FALSE(miss.reply.call_id().empty());
  EXPECT_THAT(Report(Ctx(), first, miss.reply.call_id(), R"({"text":"hi"})"), IsEmpty());

  now_ += 1500;
  Decision hit = Decide(Ctx("w2"), Lookup("r2"));
  EXPECT_EQ(hit.outcome, Outcome::kHit);
  EXPECT_EQ(hit.reply.outcome(), v1::ToolDecision::OUTCOME_HIT);
  EXPECT_EQ(hit.reply.request_id(), "r2");
  EXPECT_EQ(hit.reply.result_json(), R"({"text":"hi"})");
  EXPECT_EQ(hit.reply.cache_age_ms(), 1500);
  EXPECT_EQ(hit.reply.source_task().run_id(), "run-1");
  EXPECT_EQ(hit.reply.source_task().task_id(), "task-r1");
  EXPECT_THAT(hit.warning, IsEmpty());
}

TEST_F(ToolCacheServiceTest, Hit_ExpiresAfterTtl) {
  (*flow_.mutable_tools())["read_file"].set_ttl_ms(1000);
  Seed(Ctx(), "r1", "1");
  now_ += 999;
  EXPECT_EQ(Decide(Ctx(), Lookup("r2")).outcome, Outcome::kHit);
  now_ += 1;
  EXPECT_EQ(Decide(Ctx(), Lookup("r3")).outcome, Outcome::kMiss);
}

TEST_F(ToolCacheServiceTest, RunScope_OtherRunMisses) {
  Seed(Ctx("w1", "run-1"), "r1", "1");
  EXPECT_EQ(Decide(Ctx("w1", "run-2", "run-1"), Lookup("r2")).outcome, Outcome::kMiss);
}

TEST_F(ToolCacheServiceTest, RequestScope_SharedByRunsOfOneRequestOnly) {
  (*flow_.mutable_tools())["read_file"].set_scope(v1::CACHE_SCOPE_REQUEST);
  Seed(Ctx("w1", "root-1"), "r1", "1");
  EXPECT_EQ(Decide(Ctx("w1", "child-1", "root-1"), Lookup("r2")).outcome, Outcome::kHit);
  EXPECT_EQ(Decide(Ctx("w1", "root-2"), Lookup("r3")).outcome, Outcome::kMiss);
}

TEST_F(ToolCacheServiceTest, SessionScope_SharedAcrossRequestsOfOneSessionOnly) {
  (*flow_.mutable_tools())["read_file"].set_scope(v1::CACHE_SCOPE_SESSION);
  Seed(Ctx("w1", "run-a", "", "s1"), "r1", "1");
  EXPECT_EQ(Decide(Ctx("w1", "run-b", "", "s1"), Lookup("r2")).outcome, Outcome::kHit);
  EXPECT_EQ(Decide(Ctx("w1", "run-c", "", "s2"), Lookup("r3")).outcome, Outcome::kMiss);
  // Same session id in another tenant is another session.
  EXPECT_EQ(Decide(Ctx("w1", "run-d", "", "s1", "globex"), Lookup("r4")).outcome, Outcome::kMiss);
}

TEST_F(ToolCacheServiceTest, SessionScopeWithoutSessionId_RequestScopeWithWarning) {
  (*flow_.mutable_tools())["read_file"].set_scope(v1::CACHE_SCOPE_SESSION);
  const v1::ToolLookup lookup = Lookup("r1");
  Decision miss = Decide(Ctx("w1", "root-1"), lookup);
  EXPECT_EQ(miss.outcome, Outcome::kMiss);
  EXPECT_THAT(miss.warning, AllOf(HasSubstr("tool 'read_file'"), HasSubstr("request scope")));
  Report(Ctx("w1", "root-1"), lookup, miss.reply.call_id(), "1");
  Decision hit = Decide(Ctx("w1", "child-1", "root-1"), Lookup("r2"));
  EXPECT_EQ(hit.outcome, Outcome::kHit);
  EXPECT_THAT(hit.warning, HasSubstr("request scope"));
}

TEST_F(ToolCacheServiceTest, Tenants_NeverShareEntries) {
  Seed(Ctx("w1", "run-1", "", "", "acme"), "r1", "\"acme data\"");
  EXPECT_EQ(Decide(Ctx("w1", "run-1", "", "", "globex"), Lookup("r2")).outcome, Outcome::kMiss);
}

TEST_F(ToolCacheServiceTest, TtlZero_NeverServedButCoalesced) {
  (*flow_.mutable_tools())["read_file"].set_ttl_ms(0);
  const v1::ToolLookup owner = Lookup("r1");
  Decision miss = Decide(Ctx("w1"), owner);
  ASSERT_EQ(miss.outcome, Outcome::kMiss);
  EXPECT_EQ(Decide(Ctx("w2"), Lookup("r2")).outcome, Outcome::kWait);

  std::vector<Answer> answers = Report(Ctx("w1"), owner, miss.reply.call_id(), "42");
  ASSERT_THAT(answers, SizeIs(1));
  EXPECT_EQ(answers[0].decision.outcome(), v1::ToolDecision::OUTCOME_COALESCED);
  EXPECT_EQ(answers[0].decision.result_json(), "42");
  EXPECT_EQ(service_.counters().entries, 0);
  EXPECT_EQ(Decide(Ctx("w3"), Lookup("r3")).outcome, Outcome::kMiss);
}

TEST_F(ToolCacheServiceTest, FiveWaiters_AllGetTheOneResult) {
  const v1::ToolLookup owner = Lookup("owner");
  Decision miss = Decide(Ctx("w0"), owner);
  for (int i = 1; i <= 5; ++i) {
    Decision wait = Decide(Ctx(absl::StrCat("w", i)), Lookup(absl::StrCat("r", i)));
    EXPECT_EQ(wait.outcome, Outcome::kWait);
  }
  now_ += 300;
  std::vector<Answer> answers = Report(Ctx("w0"), owner, miss.reply.call_id(), R"({"n":7})");
  EXPECT_THAT(Requests(answers), ElementsAre("r1", "r2", "r3", "r4", "r5"));
  for (const Answer& answer : answers) {
    EXPECT_EQ(answer.decision.outcome(), v1::ToolDecision::OUTCOME_COALESCED);
    EXPECT_EQ(answer.decision.result_json(), R"({"n":7})");
    EXPECT_EQ(answer.decision.source_task().task_id(), "task-owner");
    EXPECT_EQ(answer.caller.worker_id, absl::StrCat("w", answer.decision.request_id().substr(1)));
  }
  EXPECT_EQ(service_.counters().coalesced, 5);
  EXPECT_EQ(service_.counters().waiters, 0);
}

TEST_F(ToolCacheServiceTest, Error_NeverCachedAndNextCallerExecutes) {
  const v1::ToolLookup owner = Lookup("r1");
  Decision miss = Decide(Ctx(), owner);
  EXPECT_THAT(Report(Ctx(), owner, miss.reply.call_id(), "", "ENOENT"), IsEmpty());
  EXPECT_EQ(service_.counters().entries, 0);
  Decision next = Decide(Ctx(), Lookup("r2"));
  EXPECT_EQ(next.outcome, Outcome::kMiss);
  EXPECT_NE(next.reply.call_id(), miss.reply.call_id());
}

TEST_F(ToolCacheServiceTest, OwnerError_PromotesExactlyOneWaiter) {
  const v1::ToolLookup owner = Lookup("owner");
  Decision miss = Decide(Ctx("w0"), owner);
  for (int i = 1; i <= 3; ++i) Decide(Ctx(absl::StrCat("w", i)), Lookup(absl::StrCat("r", i)));

  std::vector<Answer> promoted = Report(Ctx("w0"), owner, miss.reply.call_id(), "", "timeout");
  ASSERT_THAT(promoted, SizeIs(1));
  EXPECT_EQ(promoted[0].caller.worker_id, "w1");
  EXPECT_EQ(promoted[0].decision.request_id(), "r1");
  EXPECT_EQ(promoted[0].decision.outcome(), v1::ToolDecision::OUTCOME_MISS);
  const std::string new_call_id = promoted[0].decision.call_id();
  EXPECT_NE(new_call_id, miss.reply.call_id());
  EXPECT_EQ(service_.counters().waiters, 2);

  std::vector<Answer> answers = Report(Ctx("w1"), Lookup("r1"), new_call_id, "\"ok\"");
  EXPECT_THAT(Requests(answers), ElementsAre("r2", "r3"));
  EXPECT_EQ(Decide(Ctx(), Lookup("r4")).outcome, Outcome::kHit);
}

TEST_F(ToolCacheServiceTest, CacheIfRejects_NotStoredAndAWaiterPromoted) {
  (*flow_.mutable_tools())["read_file"].set_cache_if("result.status == 200");
  const v1::ToolLookup owner = Lookup("r1");
  Decision miss = Decide(Ctx("w1"), owner);
  Decide(Ctx("w2"), Lookup("r2"));
  std::vector<Answer> promoted =
      Report(Ctx("w1"), owner, miss.reply.call_id(), R"({"status":503})");
  ASSERT_THAT(promoted, SizeIs(1));
  EXPECT_EQ(promoted[0].decision.outcome(), v1::ToolDecision::OUTCOME_MISS);
  EXPECT_EQ(service_.counters().entries, 0);
  EXPECT_EQ(service_.counters().rejected_by_cache_if, 1);

  EXPECT_THAT(Report(Ctx("w2"), Lookup("r2"), promoted[0].decision.call_id(), R"({"status":200})"),
              IsEmpty());
  EXPECT_EQ(service_.counters().entries, 1);
  EXPECT_EQ(Decide(Ctx(), Lookup("r3")).outcome, Outcome::kHit);
}

TEST_F(ToolCacheServiceTest, CacheIfOverArgs_Applies) {
  (*flow_.mutable_tools())["read_file"].set_cache_if(R"(args.path != "volatile.log")");
  Seed(Ctx(), "r1", "1", R"({"path":"volatile.log"})");
  Seed(Ctx(), "r2", "2", R"({"path":"stable.txt"})");
  EXPECT_EQ(service_.counters().entries, 1);
}

TEST_F(ToolCacheServiceTest, BadCacheIf_NotCacheableWithWarning) {
  (*flow_.mutable_tools())["read_file"].set_cache_if("result.status = 200");
  Decision decision = Decide(Ctx(), Lookup("r1"));
  EXPECT_EQ(decision.outcome, Outcome::kNotCacheable);
  EXPECT_THAT(decision.warning, AllOf(HasSubstr("cacheIf"), HasSubstr("column 15")));
}

TEST_F(ToolCacheServiceTest, ArgsNotAnObject_NotCacheableWithWarning) {
  Decision decision = Decide(Ctx(), Lookup("r1", "[1]"));
  EXPECT_EQ(decision.outcome, Outcome::kNotCacheable);
  EXPECT_THAT(decision.warning, HasSubstr("must be a JSON object (got an array)"));
}

TEST_F(ToolCacheServiceTest, OwnerWorkerLost_WaiterPromotedAndLostWorkersWaiterDropped) {
  Decide(Ctx("dead"), Lookup("r1"));
  Decide(Ctx("dead"), Lookup("r2"));
  Decide(Ctx("w3"), Lookup("r3"));
  std::vector<Answer> promoted = service_.WorkerLost("dead", /*now_ms=*/0);
  ASSERT_THAT(promoted, SizeIs(1));
  EXPECT_EQ(promoted[0].caller.worker_id, "w3");
  EXPECT_EQ(promoted[0].decision.request_id(), "r3");
  EXPECT_EQ(promoted[0].decision.outcome(), v1::ToolDecision::OUTCOME_MISS);
  EXPECT_EQ(service_.counters().waiters, 0);
  EXPECT_EQ(service_.counters().promotions, 1);
}

// docs/tool-cache.md#when-an-executing-worker-is-out-of-touch
TEST_F(ToolCacheServiceTest, OwnerOutOfTouch_HeldAndItsResultAnswersTheWaiter) {
  service_.set_hold_ms(5'000);
  v1::ToolLookup first = Lookup("r1");
  Decision miss = Decide(Ctx("w1"), first);
  ASSERT_EQ(miss.outcome, Outcome::kMiss);
  EXPECT_EQ(Decide(Ctx("w2"), Lookup("r2")).outcome, Outcome::kWait);
  EXPECT_THAT(service_.WorkerLost("w1", now_), IsEmpty());
  EXPECT_EQ(service_.NextRelease(), now_ + 5'000);
  // Back on a new stream, it announces the call it is still running.
  v1::ToolLookup again = first;
  again.set_request_id("again-1");
  again.set_announce(true);
  Decision back = Decide(Ctx("w1"), again);
  EXPECT_EQ(back.outcome, Outcome::kMiss);
  EXPECT_EQ(back.reply.call_id(), miss.reply.call_id());
  std::vector<Answer> answers = Report(Ctx("w1"), first, miss.reply.call_id(), R"({"ok":1})");
  ASSERT_THAT(answers, SizeIs(1));
  EXPECT_EQ(answers[0].decision.request_id(), "r2");
  EXPECT_EQ(answers[0].decision.outcome(), v1::ToolDecision::OUTCOME_COALESCED);
  EXPECT_EQ(service_.counters().promotions, 0);
}

TEST_F(ToolCacheServiceTest, RecoveryHold_AReportUnderAnOldCallIdAnswersTheCallersWaiting) {
  service_.set_hold_ms(5'000);
  service_.HoldNewCalls(now_);
  // Restarted: a new caller of a key waits rather than run it.
  EXPECT_EQ(Decide(Ctx("w2"), Lookup("r2")).outcome, Outcome::kWait);
  // The worker that ran it for the scheduler before reports it, under the
  // call id the old scheduler gave.
  std::vector<Answer> answers = Report(Ctx("w1"), Lookup("r1"), "c-before-restart-7", "42");
  ASSERT_THAT(answers, SizeIs(1));
  EXPECT_EQ(answers[0].decision.request_id(), "r2");
  EXPECT_EQ(answers[0].decision.result_json(), "42");
  // Stored too: the next caller hits.
  EXPECT_EQ(Decide(Ctx("w3"), Lookup("r3")).outcome, Outcome::kHit);
}

TEST_F(ToolCacheServiceTest, RecoveryHold_EndsWithTheOldestWaiterRunningIt_ThenCallsRunAtOnce) {
  service_.set_hold_ms(5'000);
  service_.HoldNewCalls(now_);
  EXPECT_EQ(Decide(Ctx("w2"), Lookup("r2")).outcome, Outcome::kWait);
  EXPECT_THAT(service_.ReleaseHeld(now_ + 4'999), IsEmpty());
  std::vector<Answer> promoted = service_.ReleaseHeld(now_ + 5'000);
  ASSERT_THAT(promoted, SizeIs(1));
  EXPECT_EQ(promoted[0].decision.request_id(), "r2");
  EXPECT_EQ(promoted[0].decision.outcome(), v1::ToolDecision::OUTCOME_MISS);
  now_ += 5'000;
  EXPECT_EQ(Decide(Ctx("w3"), Lookup("r3", R"({"path":"other"})")).outcome, Outcome::kMiss);
}

TEST_F(ToolCacheServiceTest, NoHold_OwnerWorkerLost_PromotesAtOnce) {
  service_.set_hold_ms(0);
  service_.HoldNewCalls(now_);
  EXPECT_EQ(Decide(Ctx("w1"), Lookup("r1")).outcome, Outcome::kMiss);
  EXPECT_EQ(Decide(Ctx("w2"), Lookup("r2")).outcome, Outcome::kWait);
  EXPECT_THAT(service_.WorkerLost("w1", now_), SizeIs(1));
}

TEST_F(ToolCacheServiceTest, OwnerLeaseLost_WaiterPromoted) {
  Decide(Ctx("w1"), Lookup("r1"));
  Decide(Ctx("w2"), Lookup("r2"));
  std::vector<Answer> promoted = service_.LeaseLost("lease-r1");
  ASSERT_THAT(promoted, SizeIs(1));
  EXPECT_EQ(promoted[0].decision.request_id(), "r2");
}

TEST_F(ToolCacheServiceTest, SupersededOwnerReport_StoredButAnswersNobody) {
  const v1::ToolLookup old_owner = Lookup("r1");
  Decision miss = Decide(Ctx("w1"), old_owner);
  Decide(Ctx("w2"), Lookup("r2"));
  Decide(Ctx("w3"), Lookup("r3"));
  ASSERT_THAT(service_.LeaseLost("lease-r1"), SizeIs(1));  // r2 now executes

  EXPECT_THAT(Report(Ctx("w1"), old_owner, miss.reply.call_id(), "\"late\""), IsEmpty());
  EXPECT_EQ(service_.counters().entries, 1);
  EXPECT_EQ(service_.counters().waiters, 1);  // r3 still waits for r2's call
}

// A restarted scheduler gave a running call a new id (the worker announced
// it again), and the worker reported under the id it had before: the live
// call of that key, owned by the same task and lease, is completed all the
// same, so its waiters are answered.
TEST_F(ToolCacheServiceTest, ReportUnderAnEarlierCallId_CompletesTheLiveCallOfItsLease) {
  const v1::ToolLookup owner = Lookup("owner");
  Decide(Ctx("w0"), owner);
  Decide(Ctx("w1"), Lookup("r1"));
  std::vector<Answer> answers =
      Report(Ctx("w0"), owner, "c-given-before-the-restart", R"({"n":1})");
  EXPECT_THAT(Requests(answers), ElementsAre("r1"));
  EXPECT_EQ(service_.counters().waiters, 0);
}

TEST_F(ToolCacheServiceTest, ReportWithAnotherTasksCallId_AnswersNobody) {
  Decision miss = Decide(Ctx("w1"), Lookup("r1"));
  Decide(Ctx("w2"), Lookup("r2"));
  EXPECT_THAT(Report(Ctx("w9"), Lookup("intruder"), miss.reply.call_id(), "1"), IsEmpty());
  EXPECT_EQ(service_.counters().waiters, 1);
}

TEST_F(ToolCacheServiceTest, CachedObservation_ChangesNothing) {
  const v1::ToolLookup owner = Lookup("r1");
  Decision miss = Decide(Ctx(), owner);
  Decide(Ctx("w2"), Lookup("r2"));
  v1::ToolObservation served;
  served.set_task_id("task-r2");
  served.set_lease_id("lease-r2");
  served.set_call_id(miss.reply.call_id());
  served.set_tool_name("read_file");
  served.set_args_json(std::string(kArgs));
  served.set_result_json("1");
  served.set_cached(true);
  store::WriteBatch batch;
  EXPECT_THAT(service_.Record(Ctx("w2"), served, now_, &batch), IsEmpty());
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(service_.counters().waiters, 1);
}

TEST_F(ToolCacheServiceTest, MaxEntries_FromFlowConfig) {
  flow_.set_max_entries(2);
  for (int i = 0; i < 4; ++i) {
    Seed(Ctx(), absl::StrCat("r", i), "1", absl::StrCat(R"({"path":")", i, R"("})"));
  }
  EXPECT_EQ(service_.counters().entries, 2);
  EXPECT_EQ(service_.counters().evictions, 2);
}

TEST_F(ToolCacheServiceTest, Restart_LoadServesStoredEntries) {
  Seed(Ctx(), "r1", "\"persisted\"");
  ToolCacheService restarted("d");
  store::WriteBatch batch;
  ASSERT_THAT(restarted.Load(store_, now_ + 10, &batch), IsOk());
  Decision hit = restarted.Decide(Ctx(), Lookup("r2"), now_ + 10);
  EXPECT_EQ(hit.outcome, Outcome::kHit);
  EXPECT_EQ(hit.reply.result_json(), "\"persisted\"");
}

TEST_F(ToolCacheServiceTest, Sweep_RemovesExpiredEntries) {
  (*flow_.mutable_tools())["read_file"].set_ttl_ms(10);
  Seed(Ctx(), "r1", "1");
  store::WriteBatch batch;
  service_.Sweep(now_ + 10, &batch);
  EXPECT_EQ(service_.counters().entries, 0);
  EXPECT_EQ(service_.counters().expirations, 1);
  EXPECT_THAT(batch.ops(), SizeIs(1));
}

TEST_F(ToolCacheServiceTest, Counters_CountEachOutcome) {
  Seed(Ctx(), "r1", "1");                          // miss + stored
  Decide(Ctx(), Lookup("r2"));                     // hit
  Decide(Ctx(), Lookup("r3", R"({"path":"b"})"));  // miss (in flight)
  Decide(Ctx(), Lookup("r4", R"({"path":"b"})"));  // coalesced
  decl_.set_cacheable(false);
  Decide(Ctx(), Lookup("r5"));  // not cacheable
  const ToolCacheCounters counters = service_.counters();
  EXPECT_EQ(counters.hits, 1);
  EXPECT_EQ(counters.misses, 2);
  EXPECT_EQ(counters.coalesced, 1);
  EXPECT_EQ(counters.not_cacheable, 1);
  EXPECT_EQ(counters.stored, 1);
  EXPECT_EQ(counters.entries, 1);
  EXPECT_EQ(counters.inflight_calls, 1);
  EXPECT_EQ(counters.waiters, 1);
}

TEST_F(ToolCacheServiceTest, StatsRows_CountEachOutcomePerTenantScopeAndTool) {
  Seed(Ctx(), "r1", "1");                                    // acme run: miss + stored
  Decide(Ctx(), Lookup("r2"));                               // acme run: hit
  Decide(Ctx(), Lookup("r3", R"({"path":"b"})"));            // acme run: miss (in flight)
  Decide(Ctx(), Lookup("r4", R"({"path":"b"})"));            // acme run: coalesced
  Decide(Ctx("w1", "run-9", "", "", "beta"), Lookup("r5"));  // beta run: miss
  decl_.set_cacheable(false);
  Decide(Ctx(), Lookup("r6"));  // not cacheable: no row counts it

  std::vector<CacheStatsRow> rows = service_.StatsRows(std::nullopt);
  ASSERT_THAT(rows, SizeIs(2));
  EXPECT_EQ(rows[0].tenant, "acme");
  EXPECT_EQ(rows[0].scope, v1::CACHE_SCOPE_RUN);
  EXPECT_EQ(rows[0].tool, "read_file");
  EXPECT_EQ(rows[0].entries, 1);
  EXPECT_EQ(rows[0].hits, 1);
  EXPECT_EQ(rows[0].misses, 2);
  EXPECT_EQ(rows[0].coalesced, 1);
  EXPECT_EQ(rows[1].tenant, "beta");
  EXPECT_EQ(rows[1].entries, 0);
  EXPECT_EQ(rows[1].misses, 1);
  // The same outcomes the metric counts, summed over the rows.
  const ToolCacheCounters counters = service_.counters();
  EXPECT_EQ(counters.hits, rows[0].hits + rows[1].hits);
  EXPECT_EQ(counters.misses, rows[0].misses + rows[1].misses);
  EXPECT_EQ(counters.coalesced, rows[0].coalesced + rows[1].coalesced);

  EXPECT_THAT(service_.StatsRows("beta"), SizeIs(1));
}

}  // namespace
}  // namespace taskboard::cache
