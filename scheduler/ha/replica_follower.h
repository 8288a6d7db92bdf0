#ifndef TASKBOARD_SCHEDULER_HA_REPLICA_FOLLOWER_H_
#define TASKBOARD_SCHEDULER_HA_REPLICA_FOLLOWER_H_

// A follower replica's replication client: it opens the replica's RocksDB
// (ReplicaDb), connects to the leader's ReplicaService, says where its log
// ends, applies what the leader streams (FollowerApplier: in order, fenced by
// epoch, durable before the ack) and acknowledges it. When the leader says
// it must bootstrap, it closes its database, fetches a checkpoint
// (CheckpointReceiver: checked file by file, swapped in whole), reopens and
// follows from the checkpoint's position. After any error it reconnects,
// every retry_interval, to the leader it was last told about (logging a
// repeated failure at most every 30 s).
//
// Threading: one thread of its own; the methods may be called from any
// thread.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/security/credentials.h"
#include "scheduler/ha/follower_applier.h"
#include "scheduler/ha/replica_db.h"
#include "scheduler/ha/replication.grpc.pb.h"

namespace taskboard::ha {

struct ReplicaFollowerOptions {
  std::string replica_id;
  // The replica's store directory.
  std::string data_dir;
  // Sync each received group before acknowledging it (the store's `sync`);
  // false: the WAL is written, not synced (`wal`).
  bool fsync = true;
  absl::Duration retry_interval = absl::Milliseconds(200);
  // A batch of a 10,000-task submit is several MB.
  int max_message_bytes = 64 << 20;
  // Null: plaintext.
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  // Sent as `authorization: Bearer <token>` on every call to the leader (an
  // admin token when the replicas run with --auth-tokens); empty: none.
  std::string token;
};

class ReplicaFollower {
 public:
  // Opens the database (finishing an interrupted checkpoint install first)
  // and starts the thread, which waits for Follow. The ReplicaDb errors.
  static absl::StatusOr<std::unique_ptr<ReplicaFollower>> Start(ReplicaFollowerOptions options);
  ~ReplicaFollower();  // Stop

  // Follows the leader at `address` (host:port) of `epoch` from now on: a
  // stream to another leader ends, and entries of older epochs are refused.
  void Follow(const std::string& address, uint64_t epoch);
  // Ends the stream and the thread, syncs and closes the database (a
  // promotion then opens the directory as the scheduler's store).
  void Stop();

  // The last entry applied and durable.
  LogPosition position() const;
  // The leader's newest index as its last message said (0: none yet);
  // minus position().index, how many batches this replica lags.
  uint64_t leader_last_index() const { return leader_last_index_.load(); }
  // Checkpoints installed so far.
  int checkpoint_installs() const { return checkpoint_installs_.load(); }
  // The error that ended the last stream (OK while streaming).
  absl::Status last_error() const;

 private:
  explicit ReplicaFollower(ReplicaFollowerOptions options);
  absl::Status OpenDb();
  void Run();
  // One Follow stream until it ends; NotFound-free sentinel: `*bootstrap`
  // set when the leader asked for a checkpoint.
  absl::Status FollowOnce(const std::string& address, bool* bootstrap);
  absl::Status Bootstrap(const std::string& address);
  std::shared_ptr<grpc::Channel> ChannelTo(const std::string& address);
  // A context for the next call, cancelled by Follow (to another leader) and
  // Stop.
  std::shared_ptr<grpc::ClientContext> NewContext();
  void SetPosition(LogPosition position);

  const ReplicaFollowerOptions options_;
  std::unique_ptr<ReplicaDb> db_;             // the thread's, and Start's
  std::unique_ptr<FollowerApplier> applier_;  // the thread's
  std::atomic<uint64_t> epoch_floor_{0};
  std::atomic<int> checkpoint_installs_{0};
  std::atomic<uint64_t> leader_last_index_{0};

  mutable absl::Mutex mu_;
  std::string leader_ ABSL_GUARDED_BY(mu_);
  std::string channel_address_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<grpc::Channel> channel_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<grpc::ClientContext> context_ ABSL_GUARDED_BY(mu_);
  LogPosition position_ ABSL_GUARDED_BY(mu_);
  absl::Status last_error_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_REPLICA_FOLLOWER_H_
