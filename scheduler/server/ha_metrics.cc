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
      may_have_lost_writes_(
          metrics::BuildGauge()
              .Name("taskboard_scheduler_ha_may_have_lost_writes")
              .Help("1 once a replica of this cluster was promoted by force (taskboard admin ha "
                    "promote --force): writes acknowledged before may be lost.")
              .Register(registry)
              .Add({})) {
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

}  // namespace taskboard::server
