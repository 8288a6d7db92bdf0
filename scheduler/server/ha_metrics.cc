#include "scheduler/server/ha_metrics.h"

#include "common/metrics/builder.h"

namespace taskboard::server {
namespace {

metrics::Family<metrics::Gauge>& RoleFamily(metrics::Registry& registry) {
  return metrics::BuildGauge()
      .Name("taskboard_scheduler_ha_role")
      .Help("1 for the role this replica holds now (leader or follower), 0 for the other.")
      .Register(registry);
}

}  // namespace

HaMetrics::HaMetrics(metrics::Registry& registry)
    : role_(RoleFamily(registry)),
      leader_(role_.Add({{"role", "leader"}})),
      follower_(role_.Add({{"role", "follower"}})),
      epoch_(metrics::BuildGauge()
                 .Name("taskboard_scheduler_ha_epoch")
                 .Help("The epoch of the leader this replica knows (its own when it leads).")
                 .Register(registry)
                 .Add({})),
      elections_won_(metrics::BuildCounter()
                         .Name("taskboard_scheduler_ha_elections_won_total")
                         .Help("Terms this replica won.")
                         .Register(registry)
                         .Add({})),
      failovers_(metrics::BuildCounter()
                     .Name("taskboard_scheduler_ha_failovers_total")
                     .Help("Terms this replica won taking over from another leader.")
                     .Register(registry)
                     .Add({})),
      lag_batches_(metrics::BuildGauge()
                       .Name("taskboard_scheduler_ha_replication_lag_batches")
                       .Help("A follower: committed batches of the leader it has not applied yet.")
                       .Register(registry)
                       .Add({})),
      applied_index_(metrics::BuildGauge()
                         .Name("taskboard_scheduler_ha_applied_index")
                         .Help("The log index of the last batch in this replica's store (a leader: "
                               "written; a follower: applied and durable), within its epoch's "
                               "numbering.")
                         .Register(registry)
                         .Add({})),
      effects_dropped_(
          metrics::BuildCounter()
              .Name("taskboard_scheduler_ha_effects_dropped_total")
              .Help("Replies, assignments and watch events of writes the followers had not "
                    "acknowledged, dropped when this leader stepped down or stopped.")
              .Register(registry)
              .Add({})),
      in_sync_followers_(
          metrics::BuildGauge()
              .Name("taskboard_scheduler_ha_in_sync_followers")
              .Help("A leader: the followers in the in-sync set it last wrote to etcd, which "
                    "hold every acknowledged write and alone may take over (0 on a follower).")
              .Register(registry)
              .Add({})),
      follower_lag_batches_(
          metrics::BuildGauge()
              .Name("taskboard_scheduler_ha_follower_lag_batches")
              .Help("A leader: committed batches a follower does not hold durably yet.")
              .Register(registry)),
      follower_lag_bytes_(metrics::BuildGauge()
                              .Name("taskboard_scheduler_ha_follower_lag_bytes")
                              .Help("A leader: bytes of the batches a follower does not hold "
                                    "durably yet (of those still in the leader's log).")
                              .Register(registry)),
      follower_lag_seconds_(
          metrics::BuildGauge()
              .Name("taskboard_scheduler_ha_follower_lag_seconds")
              .Help("A leader: how long ago it committed the oldest batch a follower does not "
                    "hold durably yet (0: the follower holds everything).")
              .Register(registry)),
      may_have_lost_writes_(
          metrics::BuildGauge()
              .Name("taskboard_scheduler_ha_may_have_lost_writes")
              .Help("1 once a replica of this cluster was promoted by force (taskboard admin ha "
                    "promote --force): writes acknowledged before may be lost.")
              .Register(registry)
              .Add({})),
      // 100 µs doubling to about 13 s: a follower on the same host acks in
      // well under a millisecond, one that stalls holds replies for seconds.
      ack_latency_(metrics::BuildHistogram()
                       .Name("taskboard_scheduler_ha_ack_latency_seconds")
                       .Help("A leader: time from writing a batch to releasing its replies, "
                             "assignments and events once every in-sync follower held it.")
                       .Register(registry)
                       .Add({}, metrics::ExponentialBuckets(0.0001, 2, 18))) {
  SetLeader(false);
}

void HaMetrics::SetLeader(bool leader) {
  leader_.Set(leader ? 1 : 0);
  follower_.Set(leader ? 0 : 1);
}

void HaMetrics::SetEpoch(int64_t epoch) { epoch_.Set(static_cast<double>(epoch)); }

void HaMetrics::ElectionWon(bool failover) {
  elections_won_.Increment();
  if (failover) failovers_.Increment();
}

void HaMetrics::SetLagBatches(int64_t batches) { lag_batches_.Set(static_cast<double>(batches)); }

}  // namespace taskboard::server

namespace taskboard::server {

void HaMetrics::SetAppliedIndex(uint64_t index) { applied_index_.Set(static_cast<double>(index)); }

void HaMetrics::EffectsDropped(uint64_t effects) {
  if (effects > 0) effects_dropped_.Increment(static_cast<double>(effects));
}

void HaMetrics::SetMayHaveLostWrites(bool lost) { may_have_lost_writes_.Set(lost ? 1 : 0); }

void HaMetrics::AckWaited(absl::Duration waited) {
  ack_latency_.Observe(absl::ToDoubleSeconds(waited));
}

}  // namespace taskboard::server

namespace taskboard::server {

void HaMetrics::SetInSyncFollowers(size_t followers) {
  in_sync_followers_.Set(static_cast<double>(followers));
}

void HaMetrics::SetFollowerLag(const std::string& replica, const FollowerLag& lag) {
  {
    absl::MutexLock lock(&followers_mu_);
    if (!followers_.contains(replica)) {
      if (followers_.size() >= kMaxFollowers) return;
      followers_.insert(replica);
    }
  }
  const metrics::Labels labels = {{"replica", replica}};
  follower_lag_batches_.Add(labels).Set(static_cast<double>(lag.batches));
  follower_lag_bytes_.Add(labels).Set(static_cast<double>(lag.bytes));
  follower_lag_seconds_.Add(labels).Set(lag.seconds);
}

}  // namespace taskboard::server
