#ifndef TASKBOARD_SCHEDULER_SERVER_HA_METRICS_H_
#define TASKBOARD_SCHEDULER_SERVER_HA_METRICS_H_

// A replica's metrics (docs/metrics.md#replicated-schedulers), registered
// only with --ha-etcd-endpoints:
//   taskboard_scheduler_ha_role{role="leader|follower"}   1 for the role held
//   taskboard_scheduler_ha_epoch                         the leader's epoch known
//   taskboard_scheduler_ha_elections_won_total           terms this replica won
//   taskboard_scheduler_ha_failovers_total               ... taking over from another leader
//   taskboard_scheduler_ha_replication_lag_batches       a follower: batches behind the leader
//   taskboard_scheduler_ha_applied_index                 the last log index in this replica's store
//   taskboard_scheduler_ha_effects_dropped_total         a leader's replies, assignments and events
//                                                        dropped unacknowledged at step-down
//   taskboard_scheduler_ha_in_sync_followers             a leader: followers in the in-sync set
//                                                        it last wrote to etcd (0 on followers)
//   taskboard_scheduler_ha_follower_lag_batches{replica} a leader, per follower it has heard
//   taskboard_scheduler_ha_follower_lag_bytes{replica}   from: batches, bytes and seconds behind
//   taskboard_scheduler_ha_follower_lag_seconds{replica} (the age of its oldest missing batch)
//   taskboard_scheduler_ha_may_have_lost_writes          1 once a replica of the cluster was
//                                                        promoted by force (this one, or the
//                                                        leader that found the etcd record)
//   taskboard_scheduler_ha_ack_latency_seconds           a leader: from a batch's write to its
//                                                        release, once the in-sync set held it
//
// Thread-safe (atomic gauges and counters).

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/metrics/counter.h"
#include "common/metrics/family.h"
#include "common/metrics/gauge.h"
#include "common/metrics/histogram.h"
#include "common/metrics/registry.h"

namespace taskboard::server {

class HaMetrics {
 public:
  // Registers the families in `registry`, which outlives this object; the
  // replica starts as a follower.
  explicit HaMetrics(metrics::Registry& registry);

  void SetLeader(bool leader);
  void SetEpoch(int64_t epoch);
  // A won election; `failover` when another leader was known before.
  void ElectionWon(bool failover);
  void SetLagBatches(int64_t batches);
  void SetAppliedIndex(uint64_t index);
  void EffectsDropped(uint64_t effects);
  void SetInSyncFollowers(size_t followers);
  // A leader's view of one follower. At most kMaxFollowers replicas get
  // series; more are ignored (the label comes from the follower's hello).
  struct FollowerLag {
    int64_t batches = 0;
    int64_t bytes = 0;
    double seconds = 0;
  };
  void SetFollowerLag(const std::string& replica, const FollowerLag& lag);
  static constexpr size_t kMaxFollowers = 16;
  void SetMayHaveLostWrites(bool lost);
  // A leader: how long a written batch waited for the in-sync set before
  // its replies, assignments and events were released.
  void AckWaited(absl::Duration waited);

 private:
  metrics::Family<metrics::Gauge>& role_;
  metrics::Gauge& leader_;
  metrics::Gauge& follower_;
  metrics::Gauge& epoch_;
  metrics::Counter& elections_won_;
  metrics::Counter& failovers_;
  metrics::Gauge& lag_batches_;
  metrics::Gauge& applied_index_;
  metrics::Counter& effects_dropped_;
  metrics::Gauge& in_sync_followers_;
  metrics::Family<metrics::Gauge>& follower_lag_batches_;
  metrics::Family<metrics::Gauge>& follower_lag_bytes_;
  metrics::Family<metrics::Gauge>& follower_lag_seconds_;
  absl::Mutex followers_mu_;
  absl::flat_hash_set<std::string> followers_ ABSL_GUARDED_BY(followers_mu_);
  metrics::Gauge& may_have_lost_writes_;
  metrics::Histogram& ack_latency_;
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_HA_METRICS_H_
