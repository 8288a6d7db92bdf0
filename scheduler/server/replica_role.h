#ifndef TASKBOARD_SCHEDULER_SERVER_REPLICA_ROLE_H_
#define TASKBOARD_SCHEDULER_SERVER_REPLICA_ROLE_H_

// The role of one replica of a replicated scheduler
// (docs/high-availability.md#running-replicas): it campaigns through the
// etcd leader election, replicates from the leader while it follows, and
// becomes the leader when it wins.
//
//   Start ------> FOLLOWING: ReplicaFollower applies the leader's batches
//                  |          (the leader's address from its etcd key);
//                  |          every client call answers NotLeader
//                  | elected (epoch E)
//                  v
//                PROMOTING: stop following (the applied state synced), open
//                  |        the store with a LeaderWriteHook of epoch E,
//                  |        Recover and start the engine, publish it
//                  v
//                LEADING:   calls served while the lease holds; the leader's
//                  |        ReplicaService streams the log to the followers;
//                  |        the in-sync set kept in etcd, and a batch's
//                  |        effects released once that set holds it
//                  |        (InSyncGate)
//                  | deposed (lease deadline passed, key lost), or
//                  | resigned for a switchover (HANDING OVER: calls answer
//                  | NotLeader while the target catches up; then the
//                  | target is named successor in etcd and the lease revoked)
//                  v
//                exit(kSteppedDownExitCode) after "stepped down: <reason>"
//
// By hand (docs/operations.md#failing-over-by-hand): Switchover() on the
// leader hands over to an in-sync follower; PromoteByForce() on a follower
// names it the only candidate although it is not in sync, recording that
// acknowledged writes may be lost (MayHaveLostWrites).
//
// Stepping down is an exit, not a return to FOLLOWING: that is the one way
// to be sure no thread of the old leader sends anything after the decision
// (Patroni demotes by restarting Postgres the same way). The supervisor
// (Kubernetes, or whatever started it) starts it again, as a follower; a
// leader whose log ran ahead of the new leader's bootstraps from a
// checkpoint then.
//
// Threading: the election runs on its own thread and hands its events to the
// role's thread, which follows, promotes and steps down; the public methods
// may be called from any thread.

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "scheduler/ha/etcd_client.h"
#include "scheduler/ha/etcd_election_kv.h"
#include "scheduler/ha/in_sync_gate.h"
#include "scheduler/ha/leader_election.h"
#include "scheduler/ha/leader_write_hook.h"
#include "scheduler/ha/replica_follower.h"
#include "scheduler/ha/replica_log.h"
#include "scheduler/ha/replica_progress.h"
#include "scheduler/ha/replica_service.h"
#include "scheduler/server/engine_handle.h"
#include "scheduler/server/ha_metrics.h"
#include "scheduler/server/ha_options.h"
#include "scheduler/server/replica_service_switch.h"
#include "scheduler/store/store.h"

namespace taskboard::server {

// The exit code of a leader that lost its term (main() never returns it
// otherwise).
inline constexpr int kSteppedDownExitCode = 3;

// What `taskboard admin ha status` shows of one replica (replica_admin_service.h),
// as of the role's last tick (every 200 ms) or event.
struct ReplicaStatus {
  std::string replica_id;
  std::string advertise;
  bool leading = false;
  int64_t epoch = 0;   // the term it leads, or the last one it saw
  std::string leader;  // the leader's gRPC address as last known; "" none
  ha::LogPosition applied;
  uint64_t leader_last_index = 0;  // a follower: the leader's newest index as last heard
  // The in-sync set as this leader last wrote it (a follower: empty).
  std::vector<std::string> in_sync;
  // A leader's followers and how far each is durable (a follower: empty).
  std::vector<ha::ReplicaProgress::Replica> followers;
  // A replica of the cluster was promoted by force (this one, or the etcd
  // record this leader found); `lost_writes` is that record.
  bool may_have_lost_writes = false;
  std::string lost_writes;
};

// A switchover's outcome (replication.proto's SwitchoverResponse).
struct Handover {
  std::string from;
  std::string to;
  int64_t epoch = 0;   // the term that ends
  uint64_t index = 0;  // what the target held
};

// A promotion by force (replication.proto's PromoteReplicaResponse).
struct ForcedPromotion {
  ha::LogPosition applied;
  std::vector<std::string> in_sync_before;
};

struct ReplicaRoleOptions {
  // With advertise (and advertise_http when there is an HTTP API) resolved.
  HaOptions ha;
  std::string data_dir;
  store::Durability durability = store::Durability::kSync;
  // Outlive the role.
  EngineHandle* handle = nullptr;
  ReplicaServiceSwitch* replica_service = nullptr;
  HaMetrics* metrics = nullptr;  // null: none
  // Opens the store in data_dir with `hook`, recovers and starts the engine
  // with `gate` as its replication gate (it outlives the engine) and
  // publishes it to `handle` with `still_leading`. Called at most once, on
  // the role's thread; an error makes the replica step down.
  std::function<absl::Status(std::shared_ptr<store::RocksDbWriteHook> hook,
                             engine::ReplicationGate* gate, std::function<bool()> still_leading)>
      promote;
  // Drops every effect the gate did not release (Engine::AbandonUnreleased)
  // and returns how many; called when the leader steps down. Null: none.
  std::function<size_t()> abandon_unreleased;
  // Called once this replica leads after it was promoted by force, with the
  // record it wrote: the server puts it in the audit trail. Null: none.
  std::function<void(const std::string& record)> promoted_by_force;
};

class ReplicaRole {
 public:
  // Opens the replica's store for following, connects to etcd and starts
  // campaigning. FAILED_PRECONDITION when the data directory is locked;
  // INVALID_ARGUMENT for bad etcd endpoints or names.
  static absl::StatusOr<std::unique_ptr<ReplicaRole>> Start(ReplicaRoleOptions options);
  ~ReplicaRole();

  // Promoted, and within its lease: what /readyz reports.
  bool IsLeader() const;
  // As of the last tick or event.
  ReplicaStatus Status() const;

  // Before the server shuts down: finishes a promotion under way, stops
  // handling election events (a deposition no longer exits) and ends the
  // followers' streams.
  void BeginShutdown();
  // After the engine stopped writing: resigns the term (a follower takes
  // over in a round trip to etcd instead of a TTL) and stops following.
  void Stop();

  // `taskboard admin ha switchover` on the leader (the errors are
  // replication.proto's Switchover's). `done` is called once, on the role's
  // thread; on success the leader then waits for `replied` (the answer
  // left; at most a second) and resigns, and the process exits as any
  // deposed leader does.
  void Switchover(std::string to, std::function<void(absl::StatusOr<Handover>)> done,
                  std::shared_ptr<absl::Notification> replied);
  // `taskboard admin ha promote [--force]` on a follower (the errors are
  // replication.proto's PromoteReplica's). `done` is called once.
  void PromoteByForce(bool force, std::function<void(absl::StatusOr<ForcedPromotion>)> done);

 private:
  explicit ReplicaRole(ReplicaRoleOptions options);
  void Enqueue(const ha::ElectionEvent& event);
  void Run();
  void Handle(const ha::ElectionEvent& event);
  void Promote(int64_t epoch);
  [[noreturn]] void StepDown(const std::string& reason);
  // Each tick: the follower's lag; the leader's in-sync set.
  void Tick();
  void MaintainInSync();
  // Copies what Status() reports, on the role's thread (which owns it).
  void PublishStatus();
  // A leader's in-sync count and each follower's lag, for /metrics.
  void PublishLeaderMetrics();
  bool Eligible(const std::optional<ha::InSyncSet>& set) const;
  // Runs `task` on the role's thread (with true when the role shuts down
  // before it ran, so that a waiting caller still gets an answer).
  void RunOnRoleThread(std::function<void(bool shutting_down)> task);
  // On the role's thread (replica_handover.cc).
  absl::StatusOr<Handover> PrepareHandover(const std::string& to);
  absl::StatusOr<ForcedPromotion> ForcePromotion(bool force);
  // Reads the cluster's MayHaveLostWrites record from etcd into the status
  // and metrics (a leader, at promotion).
  void ReadLostWritesRecord();
  // How long a handover's successor alone may campaign.
  absl::Duration SuccessorWindow() const;

  const ReplicaRoleOptions options_;
  std::unique_ptr<ha::EtcdClient> etcd_;
  std::unique_ptr<ha::EtcdElectionKv> kv_;
  std::unique_ptr<ha::LeaderElection> election_;
  // The role thread's (and Stop's, after it ended).
  std::unique_ptr<ha::ReplicaFollower> follower_;
  ha::ReplicaLog log_;
  ha::ReplicaProgress progress_;
  std::shared_ptr<ha::LeaderWriteHook> hook_;
  std::unique_ptr<ha::InSyncGate> gate_;
  // The last in-sync member found lagging with no follower to replace it
  // (logged once per stall).
  std::string stalled_on_;
  std::unique_ptr<ha::LeaderReplicaService> service_;
  std::vector<std::string> in_sync_;  // as last written to etcd
  bool in_sync_written_ = false;
  // The last write of the set failed: etcd may hold it or the one before,
  // and the gate keeps needing both until a write succeeds.
  bool in_sync_uncertain_ = false;
  int64_t last_observed_epoch_ = 0;
  std::atomic<bool> promoted_{false};
  // The newest index this replica's store holds, as of the last tick (read
  // by the election thread's eligibility check).
  std::atomic<uint64_t> applied_index_{0};
  const absl::Time started_ = absl::Now();
  // A switchover under way: calls answer NotLeader, the in-sync set stays.
  std::atomic<bool> handing_over_{false};
  // Promoted by force (this replica), or the record found at promotion.
  bool may_have_lost_writes_ = false;
  bool forced_here_ = false;
  std::string lost_writes_;

  absl::Mutex mu_;
  std::deque<ha::ElectionEvent> events_ ABSL_GUARDED_BY(mu_);
  std::deque<std::function<void(bool)>> tasks_ ABSL_GUARDED_BY(mu_);
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  mutable absl::Mutex status_mu_;
  ReplicaStatus status_ ABSL_GUARDED_BY(status_mu_);
  std::thread thread_;
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_REPLICA_ROLE_H_
