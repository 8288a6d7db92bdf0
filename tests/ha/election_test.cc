// Leader election against a real 3-member etcd, with each candidate in its
// own process: one leader among three; a killed leader replaced within TTL +
// election; a stopped leader deposed (by its own clock) before the rival
// wins, its fenced writes refused by etcd; an etcd member lost without
// effect; the etcd quorum lost and regained.

#include <signal.h>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/ha/etcd_client.h"
#include "tests/ha/election_fixture.h"

namespace taskboard::testing {
namespace {

using ElectionTest = ElectionFixture;

// What etcd adds to a lease's TTL before the key goes: its lessor checks
// expiry every 500 ms; then the watcher's campaign takes a Txn round trip.
constexpr absl::Duration kExpirySlack = absl::Milliseconds(1500);

TEST_F(ElectionTest, ThreeCandidates_ExactlyOneLeadsAndTheOthersSeeIt) {
  std::optional<std::pair<int, CandidateLine>> leader = WaitForLeader(0, absl::Seconds(10));
  ASSERT_TRUE(leader.has_value()) << Logs();
  const std::string address = absl::StrCat("c", leader->first, ".replica:7233");

  for (int i = 0; i < kCandidates; ++i) {
    if (i == leader->first) continue;
    std::optional<CandidateLine> observed = candidates_[i]->WaitFor(
        "observed", absl::Seconds(5),
        [&](const CandidateLine& line) { return line.epoch == leader->second.epoch; });
    ASSERT_TRUE(observed.has_value()) << Logs();
    EXPECT_EQ(observed->leader, address);
  }
  absl::SleepFor(Ttl());  // some keepalives later, still one term
  EXPECT_EQ(AllLines("elected").size(), 1u) << Logs();
  EXPECT_TRUE(AllLines("deposed").empty()) << Logs();
}

TEST_F(ElectionTest, LeaderKilled_AnotherWinsWithinTtlPlusExpiry) {
  std::optional<std::pair<int, CandidateLine>> first = WaitForLeader(0, absl::Seconds(10));
  ASSERT_TRUE(first.has_value()) << Logs();

  const int64_t killed_ns = NowNs();
  candidates_[first->first]->Kill();
  std::optional<std::pair<int, CandidateLine>> second =
      WaitForLeader(first->second.epoch, Ttl() + kExpirySlack + absl::Seconds(5));

  ASSERT_TRUE(second.has_value()) << Logs();
  EXPECT_NE(second->first, first->first);
  const absl::Duration failover = absl::Nanoseconds(second->second.at_ns - killed_ns);
  EXPECT_LE(failover, Ttl() + kExpirySlack) << Logs();
  std::printf("failover after SIGKILL: %s (TTL %s)\n", absl::FormatDuration(failover).c_str(),
              absl::FormatDuration(Ttl()).c_str());
}

TEST_F(ElectionTest, LeaderStoppedPastTtl_DeposedByItsClockBeforeRivalWins_FencedWriteRefused) {
  std::optional<std::pair<int, CandidateLine>> first = WaitForLeader(0, absl::Seconds(10));
  ASSERT_TRUE(first.has_value()) << Logs();
  CandidateProcess& old_leader = *candidates_[first->first];
  absl::SleepFor(absl::Milliseconds(700));  // a keepalive or so into the term

  const int64_t stopped_ns = NowNs();
  old_leader.Signal(SIGSTOP);
  std::optional<std::pair<int, CandidateLine>> second =
      WaitForLeader(first->second.epoch, Ttl() + kExpirySlack + absl::Seconds(5));
  ASSERT_TRUE(second.has_value()) << Logs();
  absl::SleepFor(absl::Nanoseconds(stopped_ns + 2 * absl::ToInt64Nanoseconds(Ttl()) - NowNs()));
  old_leader.Signal(SIGCONT);

  std::optional<CandidateLine> deposed = old_leader.WaitFor("deposed", absl::Seconds(5));
  ASSERT_TRUE(deposed.has_value()) << Logs();
  EXPECT_EQ(deposed->epoch, first->second.epoch);
  // It stopped leading (its deadline) before the rival even sent its
  // winning campaign: the terms never overlapped.
  EXPECT_LT(deposed->at_ns, second->second.sent_ns) << Logs();
  // The deadline came within a TTL of the stop: the last keepalive was sent
  // before it.
  EXPECT_LE(deposed->at_ns, stopped_ns + absl::ToInt64Nanoseconds(Ttl())) << Logs();

  old_leader.Signal(SIGUSR1);
  std::optional<CandidateLine> status = old_leader.WaitFor("status", absl::Seconds(5));
  ASSERT_TRUE(status.has_value()) << Logs();
  EXPECT_FALSE(status->is_leader);
  std::optional<CandidateLine> write = old_leader.WaitFor("fenced_write", absl::Seconds(5));
  ASSERT_TRUE(write.has_value()) << Logs();
  EXPECT_EQ(write->epoch, first->second.epoch);
  EXPECT_EQ(write->code, "FAILED_PRECONDITION") << Logs();
  // Only the new leader's term is current.
  candidates_[second->first]->Signal(SIGUSR1);
  std::optional<CandidateLine> winner_write =
      candidates_[second->first]->WaitFor("fenced_write", absl::Seconds(5));
  ASSERT_TRUE(winner_write.has_value()) << Logs();
  EXPECT_EQ(winner_write->code, "OK") << Logs();
}

TEST_F(ElectionTest, OneEtcdMemberKilled_LeaderKeepsItsTerm) {
  std::optional<std::pair<int, CandidateLine>> first = WaitForLeader(0, absl::Seconds(10));
  ASSERT_TRUE(first.has_value()) << Logs();
  absl::StatusOr<int> etcd_leader = etcd_->LeaderIndex();
  ASSERT_TRUE(etcd_leader.ok()) << etcd_leader.status();

  etcd_->Kill((*etcd_leader + 1) % etcd_->size());  // an etcd follower
  absl::SleepFor(2 * Ttl());

  EXPECT_TRUE(AllLines("deposed").empty()) << Logs();
  EXPECT_EQ(AllLines("elected").size(), 1u) << Logs();
  candidates_[first->first]->Signal(SIGUSR1);
  std::optional<CandidateLine> status =
      candidates_[first->first]->WaitFor("status", absl::Seconds(5));
  ASSERT_TRUE(status.has_value()) << Logs();
  EXPECT_TRUE(status->is_leader);
  EXPECT_EQ(status->epoch, first->second.epoch);
}

TEST_F(ElectionTest, QuorumLost_LeaderStepsDownWithinTtl_AndAnElectionFollowsWhenItReturns) {
  std::optional<std::pair<int, CandidateLine>> first = WaitForLeader(0, absl::Seconds(10));
  ASSERT_TRUE(first.has_value()) << Logs();
  absl::StatusOr<int> etcd_leader = etcd_->LeaderIndex();
  ASSERT_TRUE(etcd_leader.ok()) << etcd_leader.status();
  // The etcd leader and one more: the member left has no leader and answers
  // nothing. (Killing two followers instead lets the etcd leader renew
  // leases on its own for up to an election timeout, until CheckQuorum.)
  const int other = (*etcd_leader + 1) % etcd_->size();

  const int64_t lost_ns = NowNs();
  etcd_->Kill(*etcd_leader);
  etcd_->Kill(other);
  std::optional<CandidateLine> deposed =
      candidates_[first->first]->WaitFor("deposed", Ttl() + absl::Seconds(2));
  ASSERT_TRUE(deposed.has_value()) << Logs();
  EXPECT_LE(deposed->at_ns - lost_ns, absl::ToInt64Nanoseconds(Ttl())) << Logs();
  absl::SleepFor(absl::Seconds(1));
  EXPECT_EQ(AllLines("elected").size(), 1u) << "nobody may win without a quorum\n" << Logs();

  ASSERT_TRUE(etcd_->Restart(*etcd_leader).ok());
  ASSERT_TRUE(etcd_->Restart(other).ok());
  std::optional<std::pair<int, CandidateLine>> second =
      WaitForLeader(first->second.epoch, absl::Seconds(20));
  ASSERT_TRUE(second.has_value()) << Logs();
  EXPECT_GT(second->second.epoch, first->second.epoch);
}

}  // namespace
}  // namespace taskboard::testing
