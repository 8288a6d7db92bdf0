#include "scheduler/ha/leader_election.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/ha/fake_election_kv.h"

namespace taskboard::ha {
namespace {

using ::taskboard::ha::testing::FakeElectionKv;
using ::taskboard::ha::testing::FakeLeaseClock;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

constexpr absl::Duration kTtl = absl::Seconds(3);
constexpr absl::Duration kMargin = absl::Milliseconds(500);

class LeaderElectionTest : public ::testing::Test {
 protected:
  std::unique_ptr<LeaderElection> Candidate(const std::string& id,
                                            LeaderElectionOptions options = {}) {
    options.cluster = "c1";
    options.candidate_id = id;
    options.advertise = id + ":7233";
    options.ttl = kTtl;
    options.margin = kMargin;
    options.clock = &clock_;
    options.on_event = [this, id](const ElectionEvent& event) { events_.push_back({id, event}); };
    return *LeaderElection::Create(std::move(options), &kv_);
  }

  std::vector<ElectionEvent> EventsOf(const std::string& id, ElectionEvent::Kind kind) {
    std::vector<ElectionEvent> found;
    for (const auto& [who, event] : events_) {
      if (who == id && event.kind == kind) found.push_back(event);
    }
    return found;
  }

  FakeLeaseClock clock_;
  FakeElectionKv kv_{&clock_};
  std::vector<std::pair<std::string, ElectionEvent>> events_;
};

TEST_F(LeaderElectionTest, Campaign_NoLeader_WinsWithEpochEqualToCreateRevision) {
  std::unique_ptr<LeaderElection> a = Candidate("a");
  a->Step();

  EXPECT_TRUE(a->IsLeader());
  std::optional<KvEntry> key = kv_.Peek("/taskboard/c1/leader");
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(a->epoch(), key->create_revision);
  EXPECT_EQ(key->value, "a:7233");
  ASSERT_EQ(EventsOf("a", ElectionEvent::Kind::kElected).size(), 1u);
  EXPECT_EQ(EventsOf("a", ElectionEvent::Kind::kElected)[0].epoch, a->epoch());
}

TEST_F(LeaderElectionTest, Campaign_KeyHeld_FollowsAndObservesLeaderAddress) {
  std::unique_ptr<LeaderElection> a = Candidate("a");
  std::unique_ptr<LeaderElection> b = Candidate("b");
  a->Step();
  b->Step();

  EXPECT_FALSE(b->IsLeader());
  std::optional<LeaderElection::Leader> leader = b->CurrentLeader();
  ASSERT_TRUE(leader.has_value());
  EXPECT_EQ(leader->address, "a:7233");
  EXPECT_EQ(leader->epoch, a->epoch());
  EXPECT_EQ(EventsOf("b", ElectionEvent::Kind::kLeaderObserved).size(), 1u);
}

TEST_F(LeaderElectionTest, Leader_KeepAliveAnswered_DeadlineIsSendTimePlusTtlMinusMargin) {
  std::unique_ptr<LeaderElection> a = Candidate("a");
  a->Step();
  clock_.Advance(absl::Milliseconds(500));
  const absl::Duration sent = clock_.Now();
  kv_.on_keepalive = [this] { clock_.Advance(absl::Milliseconds(40)); };  // the round trip

  const absl::Duration next = a->Step();

  EXPECT_EQ(a->LeaseDeadline(), sent + kTtl - kMargin);
  EXPECT_EQ(next, absl::Milliseconds(500) - absl::Milliseconds(40));  // ttl / 6 after the send
}

TEST_F(LeaderElectionTest, Leader_EtcdUnreachable_DeposedAtDeadlineWithoutAnAnswer) {
  std::unique_ptr<LeaderElection> a = Candidate("a");
  a->Step();
  clock_.Advance(absl::Milliseconds(500));
  a->Step();
  const absl::Duration deadline = *a->LeaseDeadline();
  kv_.SetUnavailable(true);

  clock_.Advance(deadline - clock_.Now() - absl::Nanoseconds(1));
  EXPECT_TRUE(a->IsLeader());
  a->Step();  // a keepalive that fails
  EXPECT_TRUE(a->IsLeader());
  clock_.Advance(absl::Nanoseconds(1));
  // No step and no answer needed: the clock alone ends the term.
  EXPECT_FALSE(a->IsLeader());
  EXPECT_FALSE(a->CurrentLeader().has_value());

  a->Step();
  std::vector<ElectionEvent> deposed = EventsOf("a", ElectionEvent::Kind::kDeposed);
  ASSERT_EQ(deposed.size(), 1u);
  EXPECT_EQ(deposed[0].at, deadline);
  EXPECT_EQ(deposed[0].epoch, a->epoch());
}

TEST_F(LeaderElectionTest, Leader_AnswerArrivesAfterDeadline_DoesNotReviveTerm) {
  std::unique_ptr<LeaderElection> a = Candidate("a");
  a->Step();
  const absl::Duration deadline = *a->LeaseDeadline();
  clock_.Advance(absl::Seconds(2));
  // The process stalls between send and answer, past its deadline.
  kv_.on_keepalive = [this] { clock_.Advance(absl::Milliseconds(900)); };

  a->Step();

  EXPECT_FALSE(a->IsLeader());
  std::vector<ElectionEvent> deposed = EventsOf("a", ElectionEvent::Kind::kDeposed);
  ASSERT_EQ(deposed.size(), 1u);
  EXPECT_EQ(deposed[0].at, deadline);
}

TEST_F(LeaderElectionTest, Leader_LeaseGoneInEtcd_DeposedAtOnce) {
  std::unique_ptr<LeaderElection> a = Candidate("a");
  a->Step();
  kv_.ExpireLease(kv_.Peek("/taskboard/c1/leader")->lease);

  a->Step();

  EXPECT_FALSE(a->IsLeader());
  std::vector<ElectionEvent> deposed = EventsOf("a", ElectionEvent::Kind::kDeposed);
  ASSERT_EQ(deposed.size(), 1u);
  EXPECT_THAT(deposed[0].reason, HasSubstr("lease is gone"));
}

TEST_F(LeaderElectionTest, Deposed_RevokesOldLeaseThenCampaignsWithHigherEpoch) {
  std::unique_ptr<LeaderElection> a = Candidate("a");
  a->Step();
  const int64_t first = a->epoch();
  kv_.SetUnavailable(true);
  clock_.Advance(kTtl - kMargin + absl::Milliseconds(100));
  a->Step();  // deposed; the key still lives in etcd under the old lease
  ASSERT_TRUE(kv_.Peek("/taskboard/c1/leader").has_value());
  ASSERT_FALSE(a->IsLeader());
  kv_.SetUnavailable(false);

  a->Step();  // revokes the old lease: the key goes
  a->Step();  // campaigns

  EXPECT_TRUE(a->IsLeader());
  EXPECT_GT(a->epoch(), first);
}

TEST_F(LeaderElectionTest, Follower_LeaderLeaseExpires_FollowerWinsAfterLeaderStoppedLeading) {
  std::unique_ptr<LeaderElection> a = Candidate("a");
  std::unique_ptr<LeaderElection> b = Candidate("b");
  a->Step();
  b->Step();
  const absl::Duration a_deadline = *a->LeaseDeadline();
  // a stops stepping (killed); etcd expires its lease one TTL after its grant.
  clock_.Advance(kTtl);

  b->Step();  // sees the key gone
  b->Step();  // campaigns

  EXPECT_TRUE(b->IsLeader());
  EXPECT_GT(b->epoch(), a->epoch());
  EXPECT_FALSE(a->IsLeader());
  EXPECT_LT(a_deadline, EventsOf("b", ElectionEvent::Kind::kElected)[0].campaign_sent);
  EXPECT_EQ(EventsOf("b", ElectionEvent::Kind::kLeaderGone).size(), 1u);
}

TEST_F(LeaderElectionTest, Resign_RevokesLeaseAndHoldsOffOneTtl) {
  std::unique_ptr<LeaderElection> a = Candidate("a");
  std::unique_ptr<LeaderElection> b = Candidate("b");
  a->Step();
  b->Step();

  ASSERT_THAT(a->Resign(), IsOk());
  EXPECT_FALSE(a->IsLeader());
  EXPECT_FALSE(kv_.Peek("/taskboard/c1/leader").has_value());
  a->Step();  // held off
  EXPECT_FALSE(a->IsLeader());
  b->Step();
  EXPECT_TRUE(b->IsLeader());
  EXPECT_THAT(a->Resign(), StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST_F(LeaderElectionTest, UpdateInSync_AfterDeposition_RefusedLocallyAndByEtcd) {
  std::unique_ptr<LeaderElection> a = Candidate("a");
  std::unique_ptr<LeaderElection> b = Candidate("b");
  a->Step();
  ASSERT_THAT(a->UpdateInSync(InSyncSet{0, "", {"b"}}), IsOk());
  const int64_t old_epoch = a->epoch();
  kv_.SetUnavailable(true);
  clock_.Advance(kTtl);
  kv_.SetUnavailable(false);
  b->Step();
  b->Step();
  ASSERT_TRUE(b->IsLeader());

  EXPECT_THAT(a->UpdateInSync(InSyncSet{0, "", {"c"}}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not the leader")));
  // Even a write that skips the local check is refused: etcd fences it.
  EXPECT_THAT(WriteInSyncIfEpoch(kv_, a->keys(), old_epoch, InSyncSet{0, "a", {"c"}},
                                 absl::InfiniteFuture()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("no longer holds /taskboard/c1/leader")));
  ASSERT_THAT(b->UpdateInSync(InSyncSet{0, "", {"a"}}), IsOk());
  absl::StatusOr<std::optional<InSyncSet>> set = a->ReadInSync();
  ASSERT_THAT(set, IsOk());
  ASSERT_TRUE(set->has_value());
  EXPECT_EQ(**set, (InSyncSet{b->epoch(), "b", {"a"}}));
}

TEST_F(LeaderElectionTest, Campaign_NotEligible_StaysFollower) {
  LeaderElectionOptions options;
  options.eligible = [](const std::optional<InSyncSet>& set) {
    return set.has_value() && absl::c_linear_search(set->replicas, "b");
  };
  std::unique_ptr<LeaderElection> b = Candidate("b", options);
  b->Step();
  EXPECT_FALSE(b->IsLeader());

  std::unique_ptr<LeaderElection> a = Candidate("a");
  a->Step();
  ASSERT_THAT(a->UpdateInSync(InSyncSet{0, "", {"b"}}), IsOk());
  ASSERT_THAT(a->Resign(), IsOk());
  b->Step();
  EXPECT_TRUE(b->IsLeader());
}

TEST_F(LeaderElectionTest, Campaign_AnswerLostAfterTxnApplied_RecognizesItsOwnKey) {
  std::unique_ptr<LeaderElection> a = Candidate("a");
  kv_.LoseNextPutAnswer();
  a->Step();
  EXPECT_FALSE(a->IsLeader());

  a->Step();

  EXPECT_TRUE(a->IsLeader());
  EXPECT_EQ(a->epoch(), kv_.Peek("/taskboard/c1/leader")->create_revision);
}

TEST(LeaderElectionCreateTest, BadClusterOrPrefix_InvalidArgument) {
  FakeLeaseClock clock;
  FakeElectionKv kv(&clock);
  LeaderElectionOptions options;
  options.candidate_id = "a";
  options.advertise = "a:1";
  options.cluster = "x/y";
  EXPECT_THAT(LeaderElection::Create(options, &kv),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cluster name")));
  options.cluster = "x";
  options.prefix = "taskboard";
  EXPECT_THAT(LeaderElection::Create(options, &kv),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must start with '/'")));
}

TEST(ElectionKeysTest, For_PrefixAndCluster_NamesBothKeys) {
  absl::StatusOr<ElectionKeys> keys = ElectionKeys::For("/taskboard", "prod");
  ASSERT_THAT(keys, IsOk());
  EXPECT_EQ(keys->leader, "/taskboard/prod/leader");
  EXPECT_EQ(keys->in_sync, "/taskboard/prod/in_sync");
  EXPECT_EQ(keys->lost_writes, "/taskboard/prod/may_have_lost_writes");
}

TEST_F(LeaderElectionTest, WriteInSyncIfNoLeader_RefusedWhileALeaderHoldsTheKey) {
  std::unique_ptr<LeaderElection> a = Candidate("a");
  a->Step();
  ASSERT_TRUE(a->IsLeader());
  ASSERT_THAT(a->UpdateInSync(InSyncSet{0, "", {"b"}}), IsOk());
  InSyncSet forced{0, "a", {"c"}};
  forced.successor = "c";
  forced.successor_until = absl::Now() + absl::Seconds(10);
  std::optional<InSyncSet> before;
  EXPECT_THAT(WriteInSyncIfNoLeader(kv_, a->keys(), forced, &before, absl::Now()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("a leader holds")));
  absl::StatusOr<std::optional<InSyncSet>> kept = a->ReadInSync();
  ASSERT_THAT(kept, IsOk());
  ASSERT_TRUE(kept->has_value());
  EXPECT_EQ((*kept)->replicas, std::vector<std::string>{"b"});

  // Once the leader is gone, the forced set is written and names c alone.
  a->Stop();
  ASSERT_THAT(WriteInSyncIfNoLeader(kv_, a->keys(), forced, &before, absl::Now()), IsOk());
  ASSERT_TRUE(before.has_value());
  EXPECT_EQ(before->replicas, std::vector<std::string>{"b"});
  std::unique_ptr<LeaderElection> b =
      Candidate("b", {.eligible = [](const auto& set) {
                  return set.has_value() && set->MayCampaign("b", absl::Now());
                }});
  std::unique_ptr<LeaderElection> c =
      Candidate("c", {.eligible = [](const auto& set) {
                  return set.has_value() && set->MayCampaign("c", absl::Now());
                }});
  b->Step();
  EXPECT_FALSE(b->IsLeader());
  c->Step();
  EXPECT_TRUE(c->IsLeader());
}

}  // namespace
}  // namespace taskboard::ha
