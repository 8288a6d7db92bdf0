#include "scheduler/policy/request_ledger.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/policy/token_estimate.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/policy/ledger_fixture.h"

namespace taskboard::policy {
namespace {

using ::taskboard::policy::fixture::AppendSeedFixture;
using ::taskboard::policy::fixture::ErrorObs;
using ::taskboard::policy::fixture::Obs;
using ::taskboard::policy::fixture::Task;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

v1::Observation WithSeq(v1::Observation obs, int64_t seq) {
  obs.set_seq(seq);
  return obs;
}

TEST(RequestLedger, Append_AssignsSeqFromOneAndIgnoresGivenSeq) {
  RequestLedger ledger("root");
  const v1::Observation& first = ledger.Append(WithSeq(Obs("a", "t", "{}", "1"), 42));
  const v1::Observation& second = ledger.Append(Obs("a", "t", "{}", "2"));
  EXPECT_EQ(first.seq(), 1);
  EXPECT_EQ(second.seq(), 2);
  EXPECT_EQ(ledger.size(), 2);
  EXPECT_EQ(&ledger.At(1), &first);
  EXPECT_EQ(ledger.At(2).result_json(), "2");
  EXPECT_EQ(ledger.root_run_id(), "root");
}

TEST(RequestLedger, Append_ManyMore_EarlierReferencesStayValid) {
  RequestLedger ledger;
  const v1::Observation& first = ledger.Append(Obs("a", "t", "{}", "\"first\""));
  for (int i = 0; i < 10000; ++i) ledger.Append(Obs("b", "t", "{}", "0"));
  EXPECT_EQ(&ledger.At(1), &first);
  EXPECT_EQ(first.result_json(), "\"first\"");
}

TEST(RequestLedger, Restore_InOrder_Accepted) {
  RequestLedger ledger;
  EXPECT_THAT(ledger.Restore(WithSeq(Obs("a", "t", "{}", "1"), 1)), IsOk());
  EXPECT_THAT(ledger.Restore(WithSeq(Obs("b", "t", "{}", "2"), 2)), IsOk());
  EXPECT_EQ(ledger.size(), 2);
  EXPECT_THAT(ledger.SeqsOfTask(Task("b")), ElementsAre(2));
  // Appending continues after the restored observations.
  EXPECT_EQ(ledger.Append(Obs("c", "t", "{}", "3")).seq(), 3);
}

TEST(RequestLedger, Restore_OutOfOrder_FailsNamingExpectedSeqAndLeavesLedgerUnchanged) {
  RequestLedger ledger("root-7");
  ASSERT_THAT(ledger.Restore(WithSeq(Obs("a", "t", "{}", "1"), 1)), IsOk());
  EXPECT_THAT(ledger.Restore(WithSeq(Obs("a", "t", "{}", "3"), 3)),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("root-7"), HasSubstr("has seq 3"),
                             HasSubstr("seq 2 was expected"))));
  EXPECT_THAT(ledger.Restore(WithSeq(Obs("a", "t", "{}", "1"), 1)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("seq 2 was expected")));
  EXPECT_EQ(ledger.size(), 1);
  EXPECT_THAT(ledger.SeqsOfTask(Task("a")), ElementsAre(1));
}

TEST(RequestLedger, Restore_FirstMustBeSeqOne) {
  RequestLedger ledger;
  EXPECT_THAT(ledger.Restore(WithSeq(Obs("a", "t", "{}", "1"), 0)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("seq 1 was expected")));
  EXPECT_EQ(ledger.size(), 0);
}

TEST(RequestLedger, SeqsOfTask_KeyedByRunAndTask) {
  RequestLedger ledger;
  ledger.Append(Obs("a", "t", "{}", "1"));
  ledger.Append(Obs("a", "t", "{}", "2", false, "child-run"));
  ledger.Append(Obs("b", "t", "{}", "3"));
  ledger.Append(Obs("a", "t", "{}", "4"));
  EXPECT_THAT(ledger.SeqsOfTask(Task("a")), ElementsAre(1, 4));
  EXPECT_THAT(ledger.SeqsOfTask(TaskKey{"child-run", "a"}), ElementsAre(2));
  EXPECT_THAT(ledger.SeqsOfTask(Task("missing")), IsEmpty());
}

TEST(RequestLedger, Tasks_InOrderOfFirstObservationWithoutUntagged) {
  RequestLedger ledger;
  AppendSeedFixture(ledger);
  ledger.Append(Obs("a", "t6", "{}", "6"));
  EXPECT_THAT(ledger.Tasks(), ElementsAre(Task("a"), Task("b")));
  EXPECT_THAT(ledger.SeqsOfTask(Task("")), IsEmpty());
}

TEST(RequestLedger, ErrorSeqs_OnlyFailedCalls) {
  RequestLedger ledger;
  ledger.Append(Obs("a", "t", "{}", "1"));
  ledger.Append(ErrorObs("a", "t", "{}", "boom"));
  ledger.Append(Obs("b", "t", "{}", "3"));
  ledger.Append(ErrorObs("", "u", "{}", "bang"));
  EXPECT_THAT(ledger.ErrorSeqs(), ElementsAre(2, 4));
}

TEST(RequestLedger, SeqsOfTool_ByName) {
  RequestLedger ledger;
  ledger.Append(Obs("a", "read_file", "{}", "1"));
  ledger.Append(Obs("b", "list_files", "{}", "2"));
  ledger.Append(Obs("", "read_file", "{}", "3"));
  EXPECT_THAT(ledger.SeqsOfTool("read_file"), ElementsAre(1, 3));
  EXPECT_THAT(ledger.SeqsOfTool("list_files"), ElementsAre(2));
  EXPECT_THAT(ledger.SeqsOfTool("http_get"), IsEmpty());
}

TEST(RequestLedger, TokensAt_MatchesEstimate) {
  RequestLedger ledger;
  AppendSeedFixture(ledger);
  ledger.Append(ErrorObs("a", "t", "{\"path\":\"x\"}", "not found"));
  for (int64_t seq = 1; seq <= ledger.size(); ++seq) {
    EXPECT_EQ(ledger.TokensAt(seq), EstimateTokens(ledger.At(seq))) << "seq " << seq;
  }
}

TEST(RequestLedgerDeathTest, At_SeqOutsideLedger_Aborts) {
  RequestLedger ledger("root");
  ledger.Append(Obs("a", "t", "{}", "1"));
  EXPECT_DEATH(ledger.At(0), R"(ledger has no such seq.*"seq":0)");
  EXPECT_DEATH(ledger.At(2), R"(ledger has no such seq.*"seq":2)");
}

}  // namespace
}  // namespace taskboard::policy
