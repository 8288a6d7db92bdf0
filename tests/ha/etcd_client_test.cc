// EtcdClient and EtcdElectionKv against a real 3-member etcd 3.4
// (tests/testing/etcd_cluster.h): the Txn compares the election relies on,
// lease grant, keepalive and expiry, watches, and failing over between
// endpoints.

#include "scheduler/ha/etcd_client.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/ha/etcd_election_kv.h"
#include "tests/testing/etcd_cluster.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::ha {
namespace {

using ::taskboard::testing::EtcdCluster;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;

absl::Time In(absl::Duration d) { return absl::Now() + d; }

std::unique_ptr<EtcdClient> ClientFor(std::vector<std::string> endpoints) {
  EtcdClientOptions options;
  options.endpoints = std::move(endpoints);
  options.attempt_timeout = absl::Milliseconds(500);
  return *EtcdClient::Create(std::move(options));
}

// One cluster for the tests that leave its members alone.
class EtcdClientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<std::unique_ptr<EtcdCluster>> cluster = EtcdCluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = cluster->release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(cluster_, nullptr);
    client_ = ClientFor(cluster_->endpoints());
  }
  // A key of this test only.
  std::string Key(absl::string_view name) const {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    return absl::StrCat("/test/", test->name(), "/", name);
  }

  static EtcdCluster* cluster_;
  std::unique_ptr<EtcdClient> client_;
};
EtcdCluster* EtcdClientTest::cluster_ = nullptr;

TEST_F(EtcdClientTest, Txn_CreateRevisionZero_OnlyTheFirstCreatorWins) {
  EtcdElectionKv kv(client_.get());
  const std::vector<KvCondition> absent = {{Key("k"), KvCondition::Target::kCreateRevision, 0}};

  absl::StatusOr<KvPutResult> first = kv.PutIf(absent, Key("k"), "a", 0, In(absl::Seconds(2)));
  absl::StatusOr<KvPutResult> second = kv.PutIf(absent, Key("k"), "b", 0, In(absl::Seconds(2)));

  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  EXPECT_TRUE(first->succeeded);
  EXPECT_FALSE(second->succeeded);
  absl::StatusOr<KvRead> read = kv.Get(Key("k"), In(absl::Seconds(2)));
  ASSERT_THAT(read, IsOk());
  ASSERT_TRUE(read->entry.has_value());
  EXPECT_EQ(read->entry->value, "a");
  // The winner's Txn revision is the key's create_revision: the epoch.
  EXPECT_EQ(read->entry->create_revision, first->revision);
}

TEST_F(EtcdClientTest, Txn_GuardOnAnotherKeysCreateRevision_FencesOldEpoch) {
  EtcdElectionKv kv(client_.get());
  absl::StatusOr<KvPutResult> leader = kv.PutIf({}, Key("leader"), "a", 0, In(absl::Seconds(2)));
  ASSERT_THAT(leader, IsOk());
  const int64_t epoch = leader->revision;
  const KvCondition ours{Key("leader"), KvCondition::Target::kCreateRevision, epoch};
  ASSERT_TRUE(kv.PutIf({ours}, Key("in_sync"), "1", 0, In(absl::Seconds(2)))->succeeded);

  ASSERT_THAT(client_->DeleteRange(
                  [&] {
                    etcdserverpb::DeleteRangeRequest request;
                    request.set_key(Key("leader"));
                    return request;
                  }(),
                  In(absl::Seconds(2))),
              IsOk());
  ASSERT_TRUE(kv.PutIf({}, Key("leader"), "b", 0, In(absl::Seconds(2)))->succeeded);

  absl::StatusOr<KvPutResult> stale =
      kv.PutIf({ours}, Key("in_sync"), "2", 0, In(absl::Seconds(2)));
  ASSERT_THAT(stale, IsOk());
  EXPECT_FALSE(stale->succeeded);
  EXPECT_EQ(kv.Get(Key("in_sync"), In(absl::Seconds(2)))->entry->value, "1");
}

TEST_F(EtcdClientTest, LeaseGrant_BelowEtcdsMinimum_GrantsTheMinimum) {
  EtcdElectionKv kv(client_.get());
  absl::StatusOr<GrantedLease> lease = kv.GrantLease(absl::Seconds(1), In(absl::Seconds(2)));
  ASSERT_THAT(lease, IsOk());
  // 1.5 x the 1 s election timeout.
  EXPECT_EQ(lease->ttl, absl::Seconds(2));
  EXPECT_THAT(kv.RevokeLease(lease->id, In(absl::Seconds(2))), IsOk());
  EXPECT_THAT(kv.RevokeLease(lease->id, In(absl::Seconds(2))), IsOk());  // gone already: fine
}

TEST_F(EtcdClientTest, KeepAlive_RenewsPastTheTtl_ThenExpiryDeletesTheKey) {
  EtcdElectionKv kv(client_.get());
  absl::StatusOr<GrantedLease> lease = kv.GrantLease(absl::Seconds(2), In(absl::Seconds(2)));
  ASSERT_THAT(lease, IsOk());
  ASSERT_TRUE(kv.PutIf({}, Key("k"), "v", lease->id, In(absl::Seconds(2)))->succeeded);
  absl::StatusOr<KvRead> before = kv.Get(Key("k"), In(absl::Seconds(2)));
  ASSERT_THAT(before, IsOk());

  for (int i = 0; i < 8; ++i) {  // 4 s: twice the TTL
    absl::StatusOr<absl::Duration> ttl = kv.KeepAlive(lease->id, In(absl::Seconds(1)));
    ASSERT_THAT(ttl, IsOk());
    EXPECT_EQ(*ttl, absl::Seconds(2));
    absl::SleepFor(absl::Milliseconds(500));
  }
  ASSERT_TRUE(kv.Get(Key("k"), In(absl::Seconds(2)))->entry.has_value());

  // No more keepalives: the key goes with the lease, and a watch from the
  // read's revision sees it go.
  absl::StatusOr<std::optional<KvChange>> change =
      kv.WaitForChange(Key("k"), before->revision, In(absl::Seconds(5)));
  ASSERT_THAT(change, IsOk());
  ASSERT_TRUE(change->has_value());
  EXPECT_TRUE((*change)->deleted);
  EXPECT_THAT(kv.KeepAlive(lease->id, In(absl::Seconds(1))),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("expired or was revoked")));
}

TEST_F(EtcdClientTest, WaitForChange_NothingChanges_NulloptAtTheDeadline) {
  EtcdElectionKv kv(client_.get());
  absl::StatusOr<KvRead> read = kv.Get(Key("quiet"), In(absl::Seconds(2)));
  ASSERT_THAT(read, IsOk());
  const absl::Time start = absl::Now();
  absl::StatusOr<std::optional<KvChange>> change =
      kv.WaitForChange(Key("quiet"), read->revision, In(absl::Milliseconds(300)));
  ASSERT_THAT(change, IsOk());
  EXPECT_FALSE(change->has_value());
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
}

TEST(EtcdClientNoServerTest, NothingListening_ErrorNamesEveryEndpointTried) {
  std::unique_ptr<EtcdClient> client = ClientFor({"127.0.0.1:1", "127.0.0.1:2"});
  etcdserverpb::RangeRequest request;
  request.set_key("k");
  EXPECT_THAT(client->Range(request, In(absl::Milliseconds(600))),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       AllOf(HasSubstr("etcd KV.Range"), HasSubstr("127.0.0.1:1"),
                             HasSubstr("127.0.0.1:2"))));
  EXPECT_THAT(EtcdClient::Create({}), StatusIs(absl::StatusCode::kInvalidArgument));
}

// A cluster per test: these kill members.
class EtcdClientFailoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<EtcdCluster>> cluster = EtcdCluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
  }
  std::unique_ptr<EtcdCluster> cluster_;
};

TEST_F(EtcdClientFailoverTest, FirstEndpointKilled_CallsAndKeepalivesGoToTheNext) {
  // The first endpoint is a raft follower, so what this test sees is the
  // client moving to the next endpoint alone. Killing etcd's leader adds an
  // election of 1-2 s on top; EtcdLeaderKilled_... below covers that.
  absl::StatusOr<int> leader = cluster_->LeaderIndex();
  ASSERT_THAT(leader, IsOk());
  const int members = static_cast<int>(cluster_->endpoints().size());
  const int first = (*leader + 1) % members;
  std::vector<std::string> endpoints;
  for (int i = 0; i < members; ++i) endpoints.push_back(cluster_->endpoint((first + i) % members));
  std::unique_ptr<EtcdClient> client = ClientFor(endpoints);
  EtcdElectionKv kv(client.get());
  absl::StatusOr<GrantedLease> lease = kv.GrantLease(absl::Seconds(3), In(absl::Seconds(2)));
  ASSERT_THAT(lease, IsOk());
  ASSERT_THAT(kv.KeepAlive(lease->id, In(absl::Seconds(1))), IsOk());
  ASSERT_EQ(client->current_endpoint(), cluster_->endpoint(first));

  cluster_->Kill(first);

  // The keepalive stream breaks once; the next one opens elsewhere.
  absl::StatusOr<absl::Duration> broken = kv.KeepAlive(lease->id, In(absl::Seconds(1)));
  if (!broken.ok()) {
    EXPECT_THAT(broken.status().code(),
                AnyOf(absl::StatusCode::kUnavailable, absl::StatusCode::kDeadlineExceeded,
                      absl::StatusCode::kCancelled));
    EXPECT_THAT(broken.status().message(), HasSubstr(cluster_->endpoint(first)));
  }
  EXPECT_THAT(kv.KeepAlive(lease->id, In(absl::Seconds(2))), IsOk());
  EXPECT_THAT(kv.Get("/k", In(absl::Seconds(3))), IsOk());
  EXPECT_NE(client->current_endpoint(), cluster_->endpoint(first));
}

TEST_F(EtcdClientFailoverTest, EtcdLeaderKilled_LeaseKeepsItsTtlThroughTheElection) {
  std::unique_ptr<EtcdClient> client = ClientFor(cluster_->endpoints());
  EtcdElectionKv kv(client.get());
  absl::StatusOr<GrantedLease> lease = kv.GrantLease(absl::Seconds(3), In(absl::Seconds(2)));
  ASSERT_THAT(lease, IsOk());
  ASSERT_TRUE(kv.PutIf({}, "/owned", "v", lease->id, In(absl::Seconds(2)))->succeeded);
  absl::StatusOr<int> leader = cluster_->LeaderIndex();
  ASSERT_THAT(leader, IsOk());

  cluster_->Kill(*leader);
  const absl::Time killed = absl::Now();
  absl::Time renewed = absl::InfinitePast();
  while (absl::Now() - killed < absl::Seconds(6)) {
    if (kv.KeepAlive(lease->id, In(absl::Milliseconds(500))).ok() &&
        renewed == absl::InfinitePast()) {
      renewed = absl::Now();
    }
    absl::SleepFor(absl::Milliseconds(250));
  }

  ASSERT_NE(renewed, absl::InfinitePast()) << cluster_->Logs();
  std::printf("first keepalive answered %s after the etcd leader was killed\n",
              absl::FormatDuration(renewed - killed).c_str());
  // A new etcd leader extends every lease: the key survived the election.
  absl::StatusOr<KvRead> read = kv.Get("/owned", In(absl::Seconds(3)));
  ASSERT_THAT(read, IsOk());
  EXPECT_TRUE(read->entry.has_value());
}

}  // namespace
}  // namespace taskboard::ha
