// Replication end to end in one process: a leader store (RocksDB with the
// write hook) fed batches by the test, its ReplicaService on a loopback port,
// and followers (ReplicaFollower, each with its own RocksDB in a temp dir)
// that are stopped, restarted, wiped, fenced and diverged.

#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "scheduler/ha/replica_db.h"
#include "scheduler/ha/replica_follower.h"
#include "scheduler/ha/replica_progress.h"
#include "scheduler/ha/replica_service.h"
#include "scheduler/store/store.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/unit/ha/test_leader.h"

namespace taskboard::ha {
namespace {

using ::taskboard::ha::testing::TestLeader;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::taskboard::testing::TempDir;
using ::testing::HasSubstr;

constexpr absl::Duration kWait = absl::Seconds(10);

// Polls `done` every 10 ms until it holds or `timeout` passes.
template <typename Predicate>
bool Eventually(Predicate done, absl::Duration timeout = kWait) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!done()) {
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return true;
}

// A leader: its store, log, progress and ReplicaService on a loopback port.
class TestLeaderServer {
 public:
  TestLeaderServer(uint64_t epoch, const std::string& checkpoint_dir)
      : leader_(epoch, ReplicaLogOptions{20, 1 << 30}) {
    LeaderReplicaServiceOptions options;
    options.epoch = epoch;
    options.column_families = leader_.hook().ColumnFamilies();
    options.checkpoint_dir = checkpoint_dir;
    options.max_entries_per_message = 8;
    options.checkpoint_chunk_bytes = 4096;  // many chunks per file
    service_ = std::make_unique<LeaderReplicaService>(options, &leader_.log(), &progress_,
                                                      &leader_.hook());
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    address_ = absl::StrCat("127.0.0.1:", port);
  }
  ~TestLeaderServer() { server_->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(5))); }

  TestLeader& leader() { return leader_; }
  ReplicaProgress& progress() { return progress_; }
  LeaderReplicaService& service() { return *service_; }
  const std::string& address() const { return address_; }

 private:
  TestLeader leader_;
  ReplicaProgress progress_;
  std::unique_ptr<LeaderReplicaService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
};

class ReplicationServiceTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kEpoch = 5;

  std::string FollowerDir(const std::string& name) { return (dir_.path() / name).string(); }

  std::unique_ptr<ReplicaFollower> StartFollower(const std::string& name, TestLeaderServer& leader,
                                                 uint64_t epoch = kEpoch) {
    ReplicaFollowerOptions options;
    options.replica_id = name;
    options.data_dir = FollowerDir(name);
    options.retry_interval = absl::Milliseconds(50);
    absl::StatusOr<std::unique_ptr<ReplicaFollower>> follower = ReplicaFollower::Start(options);
    EXPECT_THAT(follower, IsOk());
    (*follower)->Follow(leader.address(), epoch);
    return *std::move(follower);
  }

  // Reads `key` of the tasks column from a stopped follower's directory.
  std::optional<std::string> FollowerValue(const std::string& name, const std::string& key) {
    std::unique_ptr<ReplicaDb> db = *ReplicaDb::Open(ReplicaDbOptions{FollowerDir(name), true});
    return *db->Get(static_cast<int>(store::Column::kTasks), key);
  }

  TempDir dir_;
  TestLeaderServer server_{kEpoch, (dir_.path() / "checkpoints").string()};
};

TEST_F(ReplicationServiceTest, TwoFollowers_EveryBatchInOrder_AckedOnceDurable) {
  const LogPosition before = server_.leader().CommitMany(0, 15);
  std::unique_ptr<ReplicaFollower> a = StartFollower("a", server_);
  std::unique_ptr<ReplicaFollower> b = StartFollower("b", server_);
  ASSERT_TRUE(Eventually([&] { return a->position() == before && b->position() == before; }));

  // Live: batches committed while both stream, in steps the log (20
  // entries) always holds, so that neither follower needs a checkpoint.
  LogPosition last;
  for (int first = 15; first < 45; first += 10) {
    last = server_.leader().CommitMany(first, 10);
    ASSERT_TRUE(Eventually([&] { return a->position() == last && b->position() == last; }))
        << a->last_error() << " / " << b->last_error() << " a at " << a->position().index
        << ", b at " << b->position().index << ", leader at " << last.index;
  }
  EXPECT_TRUE(server_.progress().WaitDurable(last.index, 2, absl::Now() + kWait));
  EXPECT_EQ(a->checkpoint_installs(), 0);
  a->Stop();
  EXPECT_EQ(FollowerValue("a", "k44"), "v44");
}

TEST_F(ReplicationServiceTest, BurstPastTheLogWhileStreaming_FollowersCatchUpByLogOrCheckpoint) {
  const LogPosition before = server_.leader().CommitMany(0, 5);
  std::unique_ptr<ReplicaFollower> a = StartFollower("a", server_);
  std::unique_ptr<ReplicaFollower> b = StartFollower("b", server_);
  ASSERT_TRUE(Eventually([&] { return a->position() == before && b->position() == before; }));

  // Ten times what the log keeps, at once: a follower that falls behind
  // mid-stream is asked for a checkpoint after its last ack (once, a stream
  // that ended on a failed ack never read that request and hung).
  const LogPosition last = server_.leader().CommitMany(5, 200);

  ASSERT_TRUE(Eventually([&] { return a->position() == last && b->position() == last; }))
      << a->last_error() << " / " << b->last_error() << " a at " << a->position().index << ", b at "
      << b->position().index << ", leader at " << last.index;
  EXPECT_TRUE(server_.progress().WaitDurable(last.index, 2, absl::Now() + kWait));
  a->Stop();
  EXPECT_EQ(FollowerValue("a", "k204"), "v204");
}

TEST_F(ReplicationServiceTest, FollowerStoppedAndRestarted_ResumesFromItsPositionFromTheLog) {
  server_.leader().CommitMany(0, 5);
  std::unique_ptr<ReplicaFollower> a = StartFollower("a", server_);
  std::unique_ptr<ReplicaFollower> b = StartFollower("b", server_);
  ASSERT_TRUE(Eventually([&] { return a->position().index == 5; }));

  a.reset();  // killed
  const LogPosition last = server_.leader().CommitMany(5, 10);
  ASSERT_TRUE(Eventually([&] { return b->position() == last; }));
  a = StartFollower("a", server_);

  ASSERT_TRUE(Eventually([&] { return a->position() == last; })) << a->last_error();
  EXPECT_EQ(a->checkpoint_installs(), 0);
}

TEST_F(ReplicationServiceTest, FollowerWiped_BootstrapsFromACheckpointThenFollows) {
  server_.leader().CommitMany(0, 10);
  std::unique_ptr<ReplicaFollower> a = StartFollower("a", server_);
  std::unique_ptr<ReplicaFollower> b = StartFollower("b", server_);
  ASSERT_TRUE(Eventually([&] { return a->position().index == 10; }));

  a.reset();
  std::filesystem::remove_all(FollowerDir("a"));
  // The log keeps 20: entries 1-20 go. In steps, so that b, streaming,
  // never falls that far behind.
  for (int first = 10; first < 40; first += 10) {
    const LogPosition step = server_.leader().CommitMany(first, 10);
    ASSERT_TRUE(Eventually([&] { return b->position() == step; }));
  }
  ASSERT_GT(server_.leader().log().first_index(), 1u);
  a = StartFollower("a", server_);
  ASSERT_TRUE(Eventually([&] { return a->checkpoint_installs() == 1; })) << a->last_error();
  const LogPosition last = server_.leader().CommitMany(40, 5);

  ASSERT_TRUE(Eventually([&] { return a->position() == last && b->position() == last; }))
      << a->last_error();
  EXPECT_EQ(a->checkpoint_installs(), 1);
  EXPECT_EQ(b->checkpoint_installs(), 0);
  a->Stop();
  EXPECT_EQ(FollowerValue("a", "k0"), "v0");    // from the checkpoint
  EXPECT_EQ(FollowerValue("a", "k44"), "v44");  // from the log after it
}

TEST_F(ReplicationServiceTest, FollowerThatSawANewerEpoch_RefusesTheDeposedLeader) {
  server_.leader().CommitMany(0, 3);
  // etcd told this follower that epoch 9 leads: the epoch-5 leader is deposed.
  std::unique_ptr<ReplicaFollower> a = StartFollower("a", server_, /*epoch=*/9);

  ASSERT_TRUE(Eventually([&] { return !a->last_error().ok(); }));
  EXPECT_THAT(a->last_error(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("deposed")));
  EXPECT_EQ(a->position().index, 0u);
}

TEST_F(ReplicationServiceTest, LeaderSteppedDown_StreamsEndWithUnavailable) {
  server_.leader().CommitMany(0, 3);
  std::unique_ptr<ReplicaFollower> a = StartFollower("a", server_);
  ASSERT_TRUE(Eventually([&] { return a->position().index == 3; }));

  server_.service().Close();
  server_.leader().CommitMany(3, 2);

  ASSERT_TRUE(Eventually([&] { return !a->last_error().ok(); }));
  EXPECT_THAT(a->last_error(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("no longer the leader")));
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_EQ(a->position().index, 3u);
}

TEST_F(ReplicationServiceTest, DivergedFollower_ReplacedByTheNewLeadersCheckpoint) {
  server_.leader().CommitMany(0, 10);
  std::unique_ptr<ReplicaFollower> a = StartFollower("a", server_);
  ASSERT_TRUE(Eventually([&] { return a->position().index == 10; }));
  a->Stop();
  // A new leader (epoch 6) that never had entries 4-10 of epoch 5 (they were
  // never acknowledged), with entries 4-6 of its own.
  TestLeaderServer next(6, (dir_.path() / "checkpoints-next").string());
  next.leader().CommitMany(0, 3);
  const LogPosition last = next.leader().CommitMany(100, 3);
  ASSERT_EQ(last, (LogPosition{6, 6}));

  a = StartFollower("a", next, 6);

  ASSERT_TRUE(Eventually([&] { return a->position() == last; })) << a->last_error();
  EXPECT_EQ(a->checkpoint_installs(), 1);
  a->Stop();
  EXPECT_EQ(FollowerValue("a", "k100"), "v100");
  EXPECT_FALSE(FollowerValue("a", "k9").has_value());
}

}  // namespace
}  // namespace taskboard::ha
