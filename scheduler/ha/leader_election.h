#ifndef TASKBOARD_SCHEDULER_HA_LEADER_ELECTION_H_
#define TASKBOARD_SCHEDULER_HA_LEADER_ELECTION_H_

// Leader election for replicated schedulers, on etcd (through ElectionKv).
//
// Candidates of one cluster compete for the key `<prefix>/<cluster>/leader`.
// The winner created it in a Txn (compare create_revision == 0) under a lease
// of `ttl`; its value is the winner's advertised address, and its epoch is
// the key's create_revision: etcd revisions only grow, so every term has a
// higher epoch than the one before, and "the key still has create_revision
// E" proves that the holder of epoch E never lost it. Followers read the key
// (the current leader, for redirects) and watch it; when it is deleted (the
// lease expired or was revoked) they campaign at once.
//
// Fencing without etcd: a leader renews its lease every `keepalive_interval`
// and takes the send time s of each keepalive that etcd answered. etcd
// restarts the lease's TTL when it processes the renewal, after s, so the
// lease lives in etcd at least until s + TTL; the leader considers itself
// leader only until
//
//     deadline = s + TTL - margin      (on LeaseClock: CLOCK_BOOTTIME)
//
// IsLeader() compares the clock with that deadline on every call, so a
// leader that etcd cannot hear from (partition, quorum lost, the process
// stopped and continued) stops being leader before any rival can win, with
// no answer from etcd needed. Once past the deadline the term is over: a late
// answer never revives it. The in-sync set key `<prefix>/<cluster>/in_sync`
// is written only with a Txn conditioned on create_revision(leader) == epoch,
// so etcd itself refuses a deposed leader's writes.
//
//                 Start()
//                    |
//                    v
//   +---------> FOLLOWER -------- the leader key exists: observe its value,
//   |            |    ^           watch it until deleted (or observe_interval)
//   |            |    |
//   |            |    +---------- Txn lost to another candidate (revoke our lease)
//   |   key absent, eligible:
//   |   grant lease, Txn put-if-absent
//   |            |
//   |            v
//   |          LEADER (epoch = create_revision) -- keepalive answered in time:
//   |            |                                  deadline = send + TTL - margin
//   |            |
//   |            +-- clock >= deadline (no answer in time)     \
//   |            +-- keepalive says the lease is gone           } deposed: revoke the
//   |            +-- Resign() (holds off campaigning one TTL)  /  lease (retried until
//   |            |                                                etcd answers), then
//   +------------+                                                campaign again
//
//   Stop() ends the thread from any state; a leader resigns first.
//
// Threading: Start() runs the election on a thread of its own; every public
// method may be called from any thread. Events (Options::on_event) are
// delivered on the election thread (a resignation's on Resign's caller),
// never under the internal lock. Without Start(), a test drives the election
// with Step() and a fake clock.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/ha/election_kv.h"
#include "scheduler/ha/in_sync_set.h"
#include "scheduler/ha/lease_clock.h"

namespace taskboard::ha {

// The keys of one cluster.
struct ElectionKeys {
  std::string leader;   // <prefix>/<cluster>/leader
  std::string in_sync;  // <prefix>/<cluster>/in_sync
  // <prefix>/<cluster>/may_have_lost_writes: written by a promotion by force
  // (docs/operations.md#failing-over-by-hand) and kept, so every later leader
  // and `admin ha status` still say that acknowledged writes may be lost.
  std::string lost_writes;

  // INVALID_ARGUMENT when `prefix` does not start with '/' or `cluster` is
  // empty or holds a '/'.
  static absl::StatusOr<ElectionKeys> For(const std::string& prefix, const std::string& cluster);
};

struct ElectionEvent {
  enum class Kind {
    kElected,         // this candidate became leader of `epoch`
    kDeposed,         // this candidate's term `epoch` ended (`reason`)
    kLeaderObserved,  // another candidate leads `epoch` at `leader`
    kLeaderGone,      // the leader key was deleted (a campaign follows)
  };
  Kind kind = Kind::kLeaderObserved;
  int64_t epoch = 0;
  std::string leader;  // the leader's advertised address
  std::string reason;  // kDeposed: why
  // On the LeaseClock. kElected: when the winning Txn returned, and
  // `campaign_sent` when it was sent; kDeposed: when this candidate stopped
  // being leader (the local deadline, or when it learnt of the loss if that
  // came first).
  absl::Duration at;
  absl::Duration campaign_sent;
};

struct LeaderElectionOptions {
  std::string prefix = "/taskboard";
  std::string cluster;
  // This candidate's name (the in-sync set lists these); not empty.
  std::string candidate_id;
  // The leader key's value while this candidate leads: where followers and
  // clients are sent. Not empty.
  std::string advertise;
  // Asked of etcd; etcd may grant more (its minimum is 1.5 election
  // timeouts), and the granted TTL is the one used.
  absl::Duration ttl = absl::Seconds(3);
  // Subtracted from the lease's end in etcd for the local deadline (clock
  // rate differences, scheduling delay between a check and a send).
  // Zero: max(250 ms, ttl / 6).
  absl::Duration margin = absl::ZeroDuration();
  // Zero: ttl / 6.
  absl::Duration keepalive_interval = absl::ZeroDuration();
  // The deadline of each etcd call (a keepalive's is also capped by the
  // lease deadline).
  absl::Duration rpc_timeout = absl::Seconds(1);
  // The longest a follower watches the leader key before reading it again.
  absl::Duration observe_interval = absl::Seconds(1);
  // Pause between attempts after an etcd error.
  absl::Duration retry_interval = absl::Milliseconds(100);
  // Asked before each campaign with the in-sync set (nullopt: none written
  // yet); false: this candidate must not lead now (it lacks acknowledged
  // writes). The campaign's Txn also compares the set's mod_revision, so the
  // set cannot change between this answer and the win. Null: always eligible.
  std::function<bool(const std::optional<InSyncSet>&)> eligible;
  // Every event, on the election thread (or the caller of Step or Resign).
  std::function<void(const ElectionEvent&)> on_event;
  // Null: DefaultLeaseClock().
  LeaseClock* clock = nullptr;
};

class LeaderElection {
 public:
  enum class Role { kFollower, kLeader };

  // INVALID_ARGUMENT for a bad cluster, prefix, empty id or address, or a
  // non-positive ttl; `kv` outlives the election.
  static absl::StatusOr<std::unique_ptr<LeaderElection>> Create(LeaderElectionOptions options,
                                                                ElectionKv* kv);
  ~LeaderElection();  // Stop()

  // Starts campaigning on the election thread.
  void Start();
  // Ends the thread (within about rpc_timeout); a leader resigns first.
  void Stop();

  // True while this candidate leads: it won, and the clock is before its
  // deadline. Cheap (a lock and a clock read); the answer for acknowledging
  // anything.
  bool IsLeader() const;
  // The epoch of the current or last term of this candidate (0: never led).
  int64_t epoch() const;
  // While leading: the local deadline on the LeaseClock (it moves forward
  // with every answered keepalive); otherwise nullopt.
  std::optional<absl::Duration> LeaseDeadline() const;

  struct Leader {
    std::string address;
    int64_t epoch = 0;
  };
  // The leader as last seen (this candidate while it leads); nullopt when
  // none is known.
  std::optional<Leader> CurrentLeader() const;

  // Ends this candidate's term now: it stops being leader at once, revokes
  // the lease (so followers take over in a Txn round trip, not a TTL) and
  // does not campaign for one TTL. FAILED_PRECONDITION when not leading;
  // the revoke's error when etcd did not take it (the election thread
  // retries it; the lease expires by itself otherwise).
  absl::Status Resign();

  // Writes the in-sync set for this candidate's current epoch (its `epoch`
  // and `leader` are filled in). FAILED_PRECONDITION when this candidate is
  // not leader, or when etcd says the epoch no longer holds the leader key;
  // ABORTED when the set changed meanwhile (read and retry); etcd's errors
  // otherwise.
  absl::Status UpdateInSync(InSyncSet set);
  // The in-sync set in etcd (nullopt: none written yet); INVALID_ARGUMENT
  // when its value does not parse.
  absl::StatusOr<std::optional<InSyncSet>> ReadInSync();

  // One step of the election (what the thread repeats): a campaign, a
  // keepalive, a watch of the leader key, or a revoke. The time until the
  // next step is due. For tests that drive the election without Start().
  absl::Duration Step();

  const ElectionKeys& keys() const { return keys_; }
  absl::Duration granted_ttl() const;

 private:
  LeaderElection(LeaderElectionOptions options, ElectionKeys keys, ElectionKv* kv);
  absl::Duration StepFollower();
  absl::Duration StepLeader();
  void BecomeLeader(int64_t epoch, absl::Duration campaign_sent);
  // Records the leader key's holder; an event when it changed.
  void Observe(const KvEntry& holder);
  // The observed leader's key is gone; an event if one was known.
  void LeaderGone();
  // Ends the term that began as number `term` (if still current).
  void Depose(uint64_t term, absl::Duration at, std::string reason);
  void Emit(const ElectionEvent& event);
  // The wall-clock deadline of an etcd call starting now.
  absl::Time RpcDeadline() const;
  bool IsLeaderLocked(absl::Duration now) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  void Run();

  const LeaderElectionOptions options_;
  const ElectionKeys keys_;
  ElectionKv* const kv_;
  LeaseClock* const clock_;
  const absl::Duration margin_;
  const absl::Duration keepalive_interval_;

  mutable absl::Mutex mu_;
  Role role_ ABSL_GUARDED_BY(mu_) = Role::kFollower;
  // Counts terms won; a result that comes back for an older term is stale.
  uint64_t term_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t epoch_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Duration deadline_ ABSL_GUARDED_BY(mu_);
  int64_t lease_ ABSL_GUARDED_BY(mu_) = 0;  // granted for the campaign or the term
  absl::Duration lease_granted_at_ ABSL_GUARDED_BY(mu_);
  absl::Duration granted_ttl_ ABSL_GUARDED_BY(mu_);
  int64_t revoke_pending_ ABSL_GUARDED_BY(mu_) = 0;  // a lease to revoke before campaigning
  absl::Duration holdoff_until_ ABSL_GUARDED_BY(mu_);
  std::optional<Leader> observed_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

// Writes `set` (with `set.epoch` = `epoch`) to keys.in_sync if, in the same
// Txn, the leader key's create_revision is still `epoch`: the fenced write a
// leader makes, usable without a LeaderElection (tests, tools).
// FAILED_PRECONDITION when the epoch no longer holds the leader key; ABORTED
// when the set changed between its read and the write; etcd's errors.
absl::Status WriteInSyncIfEpoch(ElectionKv& kv, const ElectionKeys& keys, int64_t epoch,
                                InSyncSet set, absl::Time deadline);

// Writes `set` to keys.in_sync if no leader holds keys.leader and the set is
// unchanged since it was read, in one Txn: how a follower promoted by force
// names itself the successor (its own epoch does not exist yet). The value
// of the set read is returned through `before` (nullopt: none). FAILED_-
// PRECONDITION when a leader holds the key (naming it); ABORTED when the set
// changed meanwhile; etcd's errors.
absl::Status WriteInSyncIfNoLeader(ElectionKv& kv, const ElectionKeys& keys, InSyncSet set,
                                   std::optional<InSyncSet>* before, absl::Time deadline);

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_LEADER_ELECTION_H_
