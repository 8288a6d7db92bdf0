#include "scheduler/policy/token_estimate.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/policy/request_ledger.h"
#include "tests/unit/policy/ledger_fixture.h"

namespace taskboard::policy {
namespace {

using ::taskboard::policy::fixture::AppendSeedFixture;
using ::taskboard::policy::fixture::ErrorObs;
using ::taskboard::policy::fixture::Obs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(EstimateTokens, Result_CeilOfArgsPlusResultOverFour) {
  // 7 + 4 = 11 chars -> 3.
  EXPECT_EQ(EstimateTokens(Obs("a", "t", "{\"i\":1}", "\"r1\"")), 3);
  // 8 chars -> exactly 2.
  EXPECT_EQ(EstimateTokens(Obs("a", "t", "{\"i\":1}", "1")), 2);
  EXPECT_EQ(EstimateTokens(Obs("a", "t", "", "")), 0);
}

TEST(EstimateTokens, Error_MeasuredAsJsonString) {
  // `bad "x"` is 7 chars; as JSON `"bad \"x\""` it is 11; args `{}` add 2 -> 13 -> 4.
  EXPECT_EQ(EstimateTokens(ErrorObs("a", "t", "{}", "bad \"x\"")), 4);
  // A line break is escaped: `"a\nb"` is 6 chars -> 2.
  EXPECT_EQ(EstimateTokens(ErrorObs("a", "t", "", "a\nb")), 2);
}

TEST(EstimateTokens, ErrorSet_ResultIgnored) {
  v1::Observation obs = ErrorObs("a", "t", "", "e");  // `"e"` = 3 chars -> 1
  obs.set_result_json(std::string(400, 'x'));
  EXPECT_EQ(EstimateTokens(obs), 1);
}

TEST(EstimateTextTokens, CeilOfLengthOverFour) {
  EXPECT_EQ(EstimateTextTokens(""), 0);
  EXPECT_EQ(EstimateTextTokens("abcd"), 1);
  EXPECT_EQ(EstimateTextTokens("abcde"), 2);
}

TEST(BoundByTokens, Unbounded_KeepsAllAndSumsTokens) {
  RequestLedger ledger;
  AppendSeedFixture(ledger);
  TokenBounded bounded = BoundByTokens(ledger, {1, 3, 5}, 0);
  EXPECT_THAT(bounded.seqs, ElementsAre(1, 3, 5));
  EXPECT_EQ(bounded.tokens, 9);
}

TEST(BoundByTokens, Bounded_KeepsNewestThatFitInChronologicalOrder) {
  RequestLedger ledger;
  AppendSeedFixture(ledger);  // 3 tokens each
  TokenBounded bounded = BoundByTokens(ledger, {1, 2, 3, 4, 5}, 7);
  EXPECT_THAT(bounded.seqs, ElementsAre(4, 5));
  EXPECT_EQ(bounded.tokens, 6);
}

TEST(BoundByTokens, ExactFit_Kept) {
  RequestLedger ledger;
  AppendSeedFixture(ledger);
  EXPECT_THAT(BoundByTokens(ledger, {1, 2, 3}, 9).seqs, ElementsAre(1, 2, 3));
}

TEST(BoundByTokens, StopsAtFirstThatDoesNotFit_OlderSmallerOnesNotConsidered) {
  RequestLedger ledger;
  ledger.Append(Obs("a", "t", "", "1"));                    // 1 token
  ledger.Append(Obs("a", "t", "", std::string(400, 'x')));  // 100 tokens
  ledger.Append(Obs("a", "t", "", "3"));                    // 1 token
  TokenBounded bounded = BoundByTokens(ledger, {1, 2, 3}, 10);
  EXPECT_THAT(bounded.seqs, ElementsAre(3));
  EXPECT_EQ(bounded.tokens, 1);
}

TEST(BoundByTokens, NewestDoesNotFit_Empty) {
  RequestLedger ledger;
  ledger.Append(Obs("a", "t", "", "1"));
  ledger.Append(Obs("a", "t", "", std::string(400, 'x')));
  TokenBounded bounded = BoundByTokens(ledger, {1, 2}, 10);
  EXPECT_THAT(bounded.seqs, IsEmpty());
  EXPECT_EQ(bounded.tokens, 0);
}

}  // namespace
}  // namespace taskboard::policy
