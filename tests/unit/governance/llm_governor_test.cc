#include "scheduler/governance/llm_governor.h"

#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::governance {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(2'000'000);

LlmLimits Limits(const std::string& model, ModelLimits limits) {
  LlmLimits config;
  config.models[model] = limits;
  return config;
}

GrantAsk AskFor(const std::string& model, const std::string& tenant, const std::string& run, int n,
                int64_t tokens = 100) {
  GrantAsk ask;
  ask.stream_id = 1;
  ask.request_id = absl::StrCat(tenant, "/", run, "/", n);
  ask.lease_id = absl::StrCat("lease-", run, "-", n);
  ask.model = model;
  ask.tokens = tokens;
  ask.tenant = tenant;
  ask.run_id = run;
  return ask;
}

// Ticks every millisecond from `from` for `span`; returns the grants.
std::vector<Granted> TickFor(LlmGovernor& governor, absl::Time from, absl::Duration span) {
  std::vector<Granted> all;
  for (absl::Time now = from; now <= from + span; now += absl::Milliseconds(1)) {
    if (governor.NextWake() > now) continue;
    for (Granted& granted : governor.Tick(now)) all.push_back(std::move(granted));
  }
  return all;
}

TEST(LlmGovernor, AModelWithoutLimitsIsGrantedAtOnce) {
  LlmGovernor governor;
  for (int i = 0; i < 100; ++i) {
    std::optional<Granted> granted = governor.Ask(AskFor("m", "t", "r", i), kStart);
    ASSERT_TRUE(granted.has_value());
    EXPECT_EQ(granted->waited, absl::ZeroDuration());
  }
  EXPECT_EQ(governor.in_flight(), 100u);
  EXPECT_EQ(governor.NextWake(), absl::InfiniteFuture());
}

TEST(LlmGovernor, RequestsPerMinuteAreGrantedAtTheLimitAfterAHalfSecondBurst) {
  LlmGovernor governor(Limits("m", {.rpm = 600}));  // 10 per second
  int at_once = 0;
  for (int i = 0; i < 200; ++i) {
    if (governor.Ask(AskFor("m", "t", "r", i), kStart).has_value()) ++at_once;
  }
  // Half a second of the limit, plus the call that reaches the edge.
  EXPECT_EQ(at_once, 6);
  EXPECT_EQ(governor.waiting(), 194u);
  EXPECT_GT(governor.NextWake(), kStart);
  std::vector<Granted> later = TickFor(governor, kStart, absl::Seconds(10));
  // Ten seconds at 10 per second.
  EXPECT_EQ(later.size(), 100u);
  for (const Granted& granted : later) EXPECT_GT(granted.waited, absl::ZeroDuration());
}

TEST(LlmGovernor, ConcurrencyHoldsAskUntilACallEnds) {
  LlmGovernor governor(Limits("m", {.concurrency = 2}));
  std::optional<Granted> first = governor.Ask(AskFor("m", "t", "r", 1), kStart);
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(governor.Ask(AskFor("m", "t", "r", 2), kStart).has_value());
  EXPECT_FALSE(governor.Ask(AskFor("m", "t", "r", 3), kStart).has_value());
  EXPECT_EQ(governor.NextWake(), absl::InfiniteFuture());
  EXPECT_TRUE(governor.Tick(kStart).empty());

  governor.Report(first->grant_id, {.http_status = 200}, kStart + absl::Seconds(1));
  EXPECT_LE(governor.NextWake(), kStart + absl::Seconds(1));
  std::vector<Granted> granted = governor.Tick(kStart + absl::Seconds(1));
  ASSERT_EQ(granted.size(), 1u);
  EXPECT_EQ(granted[0].request_id, "t/r/3");
  EXPECT_EQ(granted[0].waited, absl::Seconds(1));
}

TEST(LlmGovernor, OneTenantsThousandCallsDoNotStarveAnothersSingleCall) {
  LlmGovernor governor(Limits("m", {.rpm = 600}));
  for (int i = 0; i < 1000; ++i) governor.Ask(AskFor("m", "big", "map-run", i), kStart);
  governor.Ask(AskFor("m", "small", "one-task", 0), kStart + absl::Milliseconds(1));
  std::vector<Granted> granted = TickFor(governor, kStart, absl::Seconds(1));
  ASSERT_GE(granted.size(), 2u);
  // The small tenant's call goes at the next free place, not after the map.
  EXPECT_THAT((std::vector<std::string>{granted[0].request_id, granted[1].request_id}),
              testing::Contains("small/one-task/0"));
}

TEST(LlmGovernor, TwoTenantsShareASaturatedModelEvenly) {
  LlmGovernor governor(Limits("m", {.rpm = 1200}));
  for (int i = 0; i < 500; ++i) {
    governor.Ask(AskFor("m", "acme", "a1", i), kStart);
    governor.Ask(AskFor("m", "globex", "g1", i), kStart);
  }
  std::map<std::string, int> per_tenant;
  for (const Granted& granted : TickFor(governor, kStart, absl::Seconds(10))) {
    per_tenant[granted.request_id.substr(0, granted.request_id.find('/'))]++;
  }
  // 20 per second for 10 seconds, split in two.
  EXPECT_NEAR(per_tenant["acme"], 100, 1);
  EXPECT_NEAR(per_tenant["globex"], 100, 1);
}

TEST(LlmGovernor, RunsOfOneTenantShareItsTurns) {
  LlmGovernor governor(Limits("m", {.rpm = 600}));
  for (int i = 0; i < 100; ++i) governor.Ask(AskFor("m", "t", "fan-out", i), kStart);
  for (int i = 0; i < 3; ++i) governor.Ask(AskFor("m", "t", "small", i), kStart);
  std::vector<Granted> granted = TickFor(governor, kStart, absl::Seconds(1));
  int small = 0;
  for (size_t i = 0; i < std::min<size_t>(6, granted.size()); ++i) {
    if (granted[i].request_id.find("/small/") != std::string::npos) ++small;
  }
  EXPECT_EQ(small, 3);
}

TEST(LlmGovernor, AHigherPriorityRunIsGrantedFirst) {
  LlmGovernor governor(Limits("m", {.concurrency = 1}));
  std::optional<Granted> running = governor.Ask(AskFor("m", "t", "r", 0), kStart);
  ASSERT_TRUE(running.has_value());
  governor.Ask(AskFor("m", "t", "low", 1), kStart);
  GrantAsk urgent = AskFor("m", "other", "high", 2);
  urgent.priority = 5;
  governor.Ask(urgent, kStart + absl::Seconds(1));
  governor.Report(running->grant_id, {.http_status = 200}, kStart + absl::Seconds(2));
  std::vector<Granted> granted = governor.Tick(kStart + absl::Seconds(2));
  ASSERT_EQ(granted.size(), 1u);
  EXPECT_EQ(granted[0].request_id, "other/high/2");
}

TEST(LlmGovernor, ATenantsShareLimitsItWithinTheModel) {
  LlmLimits limits = Limits("m", {.rpm = 6000});
  limits.tenants["capped"].models["m"] = {.rpm = 60};  // 1 per second
  LlmGovernor governor(limits);
  int capped = 0;
  int free = 0;
  for (int i = 0; i < 50; ++i) {
    if (governor.Ask(AskFor("m", "capped", "c", i), kStart)) ++capped;
    if (governor.Ask(AskFor("m", "free", "f", i), kStart)) ++free;
  }
  for (const Granted& granted : governor.Tick(kStart)) {
    ++(granted.request_id.rfind("capped", 0) == 0 ? capped : free);
  }
  EXPECT_EQ(capped, 1);  // half a second of 1 per second: just the first
  EXPECT_EQ(free, 50);
  for (const Granted& granted : TickFor(governor, kStart, absl::Seconds(5))) {
    if (granted.request_id.rfind("capped", 0) == 0) ++capped;
  }
  EXPECT_EQ(capped, 6);
}

TEST(LlmGovernor, A429PausesTheModelForItsRetryAfterThenRunsItAtHalfRate) {
  LlmGovernor governor(Limits("m", {.rpm = 600}));
  std::optional<Granted> call = governor.Ask(AskFor("m", "t", "r", 0), kStart);
  ASSERT_TRUE(call.has_value());
  governor.Report(call->grant_id, {.http_status = 429, .retry_after = absl::Seconds(2)}, kStart);
  EXPECT_FALSE(governor.Ask(AskFor("m", "t", "r", 1), kStart + absl::Seconds(1)).has_value());
  EXPECT_EQ(governor.NextWake(), kStart + absl::Seconds(2));
  ASSERT_EQ(governor.Models().size(), 1u);
  EXPECT_EQ(governor.Models()[0].rpm, 300);
  for (int i = 2; i < 100; ++i) governor.Ask(AskFor("m", "t", "r", i), kStart);
  std::vector<Granted> granted = TickFor(governor, kStart, absl::Seconds(12));
  // Nothing before the pause ends; then 5 per second (and a small burst).
  ASSERT_FALSE(granted.empty());
  EXPECT_GE(granted.front().waited, absl::Seconds(1));
  EXPECT_NEAR(static_cast<double>(granted.size()), 50 + 3, 2);
}

TEST(LlmGovernor, TheSlowWindowEndsAMinuteAfterThePause) {
  LlmGovernor governor(Limits("m", {.rpm = 600}));
  std::optional<Granted> call = governor.Ask(AskFor("m", "t", "r", 0), kStart);
  governor.Report(call->grant_id, {.http_status = 429, .retry_after = absl::Seconds(1)}, kStart);
  governor.Refresh(kStart + absl::Seconds(30));
  EXPECT_EQ(governor.Models()[0].rpm, 300);
  governor.Refresh(kStart + absl::Seconds(62));
  EXPECT_EQ(governor.Models()[0].rpm, 600);
}

TEST(LlmGovernor, RealTokensReplaceTheReservation) {
  LlmGovernor governor(Limits("m", {.tpm = 60'000}));  // 1,000 per second
  std::optional<Granted> big = governor.Ask(AskFor("m", "t", "r", 0, 2'000), kStart);
  ASSERT_TRUE(big.has_value());
  EXPECT_FALSE(governor.Ask(AskFor("m", "t", "r", 1, 100), kStart).has_value());
  // It used 200 tokens, not 2,000: the rest comes back at once.
  governor.Report(big->grant_id, {.http_status = 200, .input_tokens = 150, .output_tokens = 50},
                  kStart);
  EXPECT_EQ(governor.Tick(kStart).size(), 1u);
}

TEST(LlmGovernor, AnEndedLeaseDropsItsAsksAndFreesItsCalls) {
  LlmGovernor governor(Limits("m", {.concurrency = 1}));
  GrantAsk first = AskFor("m", "t", "r", 0);
  first.lease_id = "lease-a";
  ASSERT_TRUE(governor.Ask(first, kStart).has_value());
  GrantAsk second = AskFor("m", "t", "r", 1);
  second.lease_id = "lease-a";
  EXPECT_FALSE(governor.Ask(second, kStart).has_value());
  EXPECT_FALSE(governor.Ask(AskFor("m", "t", "r", 2), kStart).has_value());
  governor.ReleaseLease("lease-a", kStart);
  EXPECT_EQ(governor.in_flight(), 0u);
  std::vector<Granted> granted = governor.Tick(kStart);
  ASSERT_EQ(granted.size(), 1u);
  EXPECT_EQ(granted[0].request_id, "t/r/2");
  EXPECT_EQ(governor.waiting(), 0u);
}

TEST(LlmGovernor, AnEndedStreamDropsItsAsks) {
  LlmGovernor governor(Limits("m", {.concurrency = 1}));
  GrantAsk held = AskFor("m", "t", "r", 0);
  held.stream_id = 7;
  ASSERT_TRUE(governor.Ask(held, kStart).has_value());
  GrantAsk waiting = AskFor("m", "t", "r", 1);
  waiting.stream_id = 7;
  governor.Ask(waiting, kStart);
  governor.ReleaseStream(7, kStart);
  EXPECT_EQ(governor.in_flight(), 0u);
  EXPECT_EQ(governor.waiting(), 0u);
}

TEST(LlmGovernor, AReportOfAnUnknownGrantChangesNothing) {
  LlmGovernor governor(Limits("m", {.concurrency = 1}));
  ASSERT_TRUE(governor.Ask(AskFor("m", "t", "r", 0), kStart).has_value());
  governor.Report("g00000000-1-from-before-a-restart", {.http_status = 200}, kStart);
  EXPECT_EQ(governor.in_flight(), 1u);
}

TEST(LlmGovernor, NewLimitsApplyToWhatWaits) {
  LlmGovernor governor(Limits("m", {.concurrency = 1}));
  ASSERT_TRUE(governor.Ask(AskFor("m", "t", "r", 0), kStart).has_value());
  EXPECT_FALSE(governor.Ask(AskFor("m", "t", "r", 1), kStart).has_value());
  governor.SetLimits(Limits("m", {.concurrency = 2}), kStart);
  EXPECT_LE(governor.NextWake(), kStart);
  EXPECT_EQ(governor.Tick(kStart).size(), 1u);
}

TEST(LlmGovernor, AsksAndCallsInFlightAreReservedAgainstTheirAccounts) {
  LlmGovernor governor(Limits("m", {.concurrency = 1}));
  GrantAsk running = AskFor("m", "t", "r", 0, 1'000);
  running.usd = 0.5;
  running.accounts = {"run/r", "tenant/t"};
  std::optional<Granted> granted = governor.Ask(running, kStart);
  ASSERT_TRUE(granted.has_value());
  GrantAsk queued = AskFor("m", "t", "r", 1, 500);
  queued.usd = 0.25;
  queued.accounts = {"run/r"};
  EXPECT_FALSE(governor.Ask(queued, kStart).has_value());
  EXPECT_EQ(governor.Reserved("run/r").tokens, 1'500);
  EXPECT_DOUBLE_EQ(governor.Reserved("run/r").usd, 0.75);
  EXPECT_EQ(governor.Reserved("tenant/t").tokens, 1'000);

  governor.Report(granted->grant_id, {.http_status = 200}, kStart);
  EXPECT_EQ(governor.Reserved("tenant/t").tokens, 0);
  EXPECT_EQ(governor.Reserved("run/r").tokens, 500);
  governor.ReleaseLease(queued.lease_id, kStart);
  EXPECT_EQ(governor.Reserved("run/r").tokens, 0);
}

TEST(LlmGovernor, TracksABoundedNumberOfModels) {
  LlmGovernor governor(Limits("configured", {.rpm = 60}));
  EXPECT_TRUE(governor.Admit("a", 2));
  EXPECT_TRUE(governor.Admit("b", 2));
  EXPECT_FALSE(governor.Admit("c", 2));
  EXPECT_TRUE(governor.Admit("a", 2));           // already tracked
  EXPECT_TRUE(governor.Admit("configured", 2));  // in the limits file
}

TEST(LlmGovernor, ABurstOf429sHalvesTheRateOnce) {
  LlmGovernor governor(Limits("m", {.rpm = 600}));
  std::vector<Granted> burst;
  for (int i = 0; i < 4; ++i) {
    if (auto granted = governor.Ask(AskFor("m", "t", "r", i), kStart)) burst.push_back(*granted);
  }
  ASSERT_GE(burst.size(), 3u);
  for (const Granted& call : burst) {
    governor.Report(call.grant_id, {.http_status = 429, .retry_after = absl::Seconds(1)},
                    kStart + absl::Milliseconds(10));
  }
  EXPECT_EQ(governor.Models()[0].rpm, 300);
  // A call granted after the slow-down that still gets a 429 halves again.
  std::optional<Granted> later = governor.Ask(AskFor("m", "t", "r", 9), kStart + absl::Seconds(2));
  ASSERT_TRUE(later.has_value());
  governor.Report(later->grant_id, {.http_status = 429}, kStart + absl::Seconds(2));
  EXPECT_EQ(governor.Models()[0].rpm, 150);
}

TEST(LlmGovernor, OneCallReservesAtMostAMinuteOfTheModelsTokens) {
  LlmGovernor governor(Limits("m", {.tpm = 60'000}));
  GrantAsk huge = AskFor("m", "t", "r", 0, 100'000'000);
  huge.accounts = {"run/r"};
  ASSERT_TRUE(governor.Ask(huge, kStart).has_value());
  EXPECT_EQ(governor.Reserved("run/r").tokens, 60'000);
  // The bucket owes a minute less its burst, not 28 hours.
  std::optional<Granted> next;
  for (absl::Time now = kStart; !next && now < kStart + absl::Minutes(2); now += absl::Seconds(1)) {
    next = governor.Ask(AskFor("m", "t", "r", 1, 10), now);
    if (!next) {
      std::vector<Granted> ticked = governor.Tick(now);
      if (!ticked.empty()) next = ticked[0];
    }
  }
  EXPECT_TRUE(next.has_value());
}

TEST(LlmGovernor, CountsTheCallsOfEachLease) {
  LlmGovernor governor(Limits("m", {.concurrency = 1}));
  GrantAsk first = AskFor("m", "t", "r", 0);
  first.lease_id = "l";
  GrantAsk second = AskFor("m", "t", "r", 1);
  second.lease_id = "l";
  std::optional<Granted> granted = governor.Ask(first, kStart);
  governor.Ask(second, kStart);
  EXPECT_EQ(governor.LeaseCalls("l"), 2u);
  governor.Report(granted->grant_id, {.http_status = 200}, kStart);
  EXPECT_EQ(governor.LeaseCalls("l"), 1u);
  governor.ReleaseLease("l", kStart);
  EXPECT_EQ(governor.LeaseCalls("l"), 0u);
}

TEST(LlmGovernor, ACallUnderAShareARemovedAfterReloadStillFreesIt) {
  LlmLimits limits = Limits("m", {.rpm = 6000});
  limits.tenants["acme"].models["m"] = {.concurrency = 1};
  LlmGovernor governor(limits);
  std::optional<Granted> call = governor.Ask(AskFor("m", "acme", "r", 0), kStart);
  ASSERT_TRUE(call.has_value());
  governor.SetLimits(Limits("m", {.rpm = 6000}), kStart);  // share removed
  governor.Report(call->grant_id, {.http_status = 200}, kStart);
  governor.SetLimits(limits, kStart);  // and back
  EXPECT_TRUE(governor.Ask(AskFor("m", "acme", "r", 1), kStart + absl::Seconds(1)).has_value());
}

}  // namespace
}  // namespace taskboard::governance
