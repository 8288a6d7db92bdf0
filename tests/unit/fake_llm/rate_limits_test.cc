#include "tools/fake-llm/rate_limits.h"

#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::fake_llm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

RateLimitOptions Limits(double rpm, double tpm) {
  RateLimitOptions options;
  options.requests_per_minute = rpm;
  options.tokens_per_minute = tpm;
  return options;
}

// Checks and charges requests of `tokens` at `now` while admitted; returns
// how many were.
int AdmitWhileRoom(RateLimits& limits, absl::Time now, int64_t tokens) {
  int admitted = 0;
  while (!limits.Check(now).has_value() && admitted < 100'000) {
    limits.Charge(now, tokens);
    ++admitted;
  }
  return admitted;
}

TEST(RateLimits, Unlimited_NeverRefusesAndSendsNoHeaders) {
  RateLimits limits(Limits(0, 0));
  for (int i = 0; i < 1000; ++i) limits.Charge(kStart, 1'000'000);
  EXPECT_EQ(limits.Check(kStart), std::nullopt);
  EXPECT_TRUE(RateLimitHeaders(Limits(0, 0)).empty());
}

TEST(RateLimits, RequestLimit_AdmitsOneSecondsWorthThenNamesRequests) {
  RateLimits limits(Limits(600, 0));
  // 10 per second held, plus the request that empties the bucket to its edge.
  EXPECT_EQ(AdmitWhileRoom(limits, kStart, 1'000'000), 11);
  const std::optional<RateLimitRefusal> refusal = limits.Check(kStart);
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->type, "requests");
  EXPECT_EQ(refusal->limit, 600);
  EXPECT_EQ(refusal->wait, absl::Milliseconds(100));
  EXPECT_EQ(limits.Check(kStart + absl::Milliseconds(100)), std::nullopt);
}

TEST(RateLimits, TokenLimit_ARequestOwesItsTokensThenNamesTokens) {
  RateLimits limits(Limits(0, 600));  // 10 tokens per second
  ASSERT_EQ(limits.Check(kStart), std::nullopt);
  limits.Charge(kStart, 60);  // six seconds' worth: five beyond the bucket
  const std::optional<RateLimitRefusal> refusal = limits.Check(kStart);
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->type, "tokens");
  EXPECT_EQ(refusal->limit, 600);
  EXPECT_EQ(refusal->wait, absl::Seconds(5));
}

TEST(RateLimits, BothEmpty_NamesTheLongerWait) {
  RateLimits limits(Limits(60, 600));
  // Tokens: 100 is 10 s of the limit, 9 s beyond the bucket. Requests: two
  // are 2 s, 1 s beyond.
  limits.Charge(kStart, 100);
  limits.Charge(kStart, 0);
  const std::optional<RateLimitRefusal> refusal = limits.Check(kStart);
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->type, "tokens");
  EXPECT_EQ(refusal->wait, absl::Seconds(9));
}

TEST(RateLimitHeaders, NameOnlyTheLimitsSet) {
  EXPECT_THAT(RateLimitHeaders(Limits(600, 0)),
              ElementsAre(Pair("x-ratelimit-limit-requests", "600")));
  EXPECT_THAT(RateLimitHeaders(Limits(0.5, 2'000'000)),
              ElementsAre(Pair("x-ratelimit-limit-requests", "0.5"),
                          Pair("x-ratelimit-limit-tokens", "2000000")));
}

TEST(RenderRateLimited, OpenAiBodyAndRetryAfterRoundedUp) {
  const HttpReply reply =
      RenderRateLimited(RateLimitRefusal{"requests", 600, absl::Milliseconds(1200)});
  EXPECT_EQ(reply.status, 429);
  EXPECT_THAT(reply.headers, ElementsAre(Pair("Retry-After", "2")));
  const Json error = (*ParseJson(reply.body))["error"];
  EXPECT_EQ(error["message"],
            "Rate limit reached for requests per minute (limit 600): retry after 2 s");
  EXPECT_EQ(error["type"], "requests");
  EXPECT_EQ(error["code"], "rate_limit_exceeded");
}

TEST(RenderRateLimited, AShortWait_IsStillOneSecond) {
  const HttpReply reply =
      RenderRateLimited(RateLimitRefusal{"tokens", 1000, absl::Milliseconds(3)});
  EXPECT_THAT(reply.headers, ElementsAre(Pair("Retry-After", "1")));
  EXPECT_THAT((*ParseJson(reply.body))["error"]["message"].get<std::string>(),
              HasSubstr("tokens per minute (limit 1000): retry after 1 s"));
}

TEST(ParsePerMinuteLimit, NumbersAtLeastZero_Parse) {
  EXPECT_EQ(*ParsePerMinuteLimit("--rpm", "0"), 0);
  EXPECT_EQ(*ParsePerMinuteLimit("--rpm", "600"), 600);
  EXPECT_EQ(*ParsePerMinuteLimit("--tpm", "1500.5"), 1500.5);
}

TEST(ParsePerMinuteLimit, NegativeOrNotANumber_IsAnErrorNamingTheFlag) {
  for (const char* bad : {"-1", "abc", "", "10x", "nan", "inf"}) {
    const absl::StatusOr<double> parsed = ParsePerMinuteLimit("--tpm", bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StartsWith(parsed.status().message(), absl::StrCat("--tpm ", bad, ":")))
        << parsed.status();
  }
}

}  // namespace
}  // namespace taskboard::fake_llm
