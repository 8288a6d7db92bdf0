#ifndef TASKBOARD_SCHEDULER_HA_FOLLOW_REACTOR_H_
#define TASKBOARD_SCHEDULER_HA_FOLLOW_REACTOR_H_

// One follower's Follow stream on the leader. The follower's hello says
// where its log ends; the leader answers where it continues (Start), or that
// it must bootstrap from a checkpoint (NeedCheckpoint, then the stream ends
// OK): its log diverged, it is behind what the ReplicaLog holds, or its
// column families differ. Then every entry from there on is written in index
// order, as many per message as the limits allow; new entries wake the
// stream through a ReplicaLog listener. Acks go to ReplicaProgress.
//
// One read and one write in flight; Finish once, never while a write is in
// flight (it waits for the write); reactions never block (log reads are
// in memory).

#include <cstdint>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/ha/replica_service.h"

namespace taskboard::ha {

class FollowReactor final : public grpc::ServerBidiReactor<v1::FollowRequest, v1::FollowResponse> {
 public:
  FollowReactor(const LeaderReplicaServiceOptions& options, LeaderReplicaService* service,
                ReplicaLog* log, ReplicaProgress* progress);

  // Ends the stream with `status` (after the write in flight).
  void FinishWith(grpc::Status status);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  // Answers the hello: Start, NeedCheckpoint or an error.
  void OnHello(const v1::Hello& hello);
  // Writes the next entries, if any and no write is in flight.
  void Pump();
  void FinishLocked(grpc::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Starts writing response_ (filled under the lock) outside the lock.
  void Write();

  const LeaderReplicaServiceOptions& options_;
  LeaderReplicaService* const service_;
  ReplicaLog* const log_;
  ReplicaProgress* const progress_;
  const bool registered_;
  v1::FollowRequest request_;    // owned by the read in flight
  v1::FollowResponse response_;  // owned by the write in flight
  uint64_t listener_ = 0;        // set once, before any Pump can run

  absl::Mutex mu_;
  std::string replica_id_ ABSL_GUARDED_BY(mu_);
  bool streaming_ ABSL_GUARDED_BY(mu_) = false;  // Start was sent
  uint64_t next_index_ ABSL_GUARDED_BY(mu_) = 0;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<grpc::Status> finish_after_write_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_FOLLOW_REACTOR_H_
