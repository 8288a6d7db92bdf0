#ifndef TASKBOARD_SCHEDULER_ENGINE_TRIGGERS_TRIGGERS_H_
#define TASKBOARD_SCHEDULER_ENGINE_TRIGGERS_TRIGGERS_H_

// The event triggers of every tenant, on the engine's loop
// (docs/schedules.md#event-triggers). Publish hands an event to the
// triggers of its name that the caller may reach; each answers with one
// delivery: accepted (a run started), deduped (the run of an earlier
// delivery with the same dedupe key exists), filtered, or refused (why:
// signature, rate, a payload field the args need, the per-event bound).
//
// A delivery's run and the trigger's record (counts, recent deliveries) are
// written in the SAME batch, and the run carries the idempotency key
// `trigger:<name>:<dedupe>` scoped to the tenant, so a redelivery, even
// after a restart, finds the first delivery's run and starts nothing
// (docs/schedules.md#redelivery). Rate buckets live in memory (decision
// 187). Records touched by a batch are written once, by Flush.
//
// Loop thread only. The clock is the batch's.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scheduler/dispatch/worker_registry.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/runs/run_manager.h"
#include "scheduler/engine/triggers/trigger_metrics.h"
#include "scheduler/engine/triggers/trigger_run_source.h"
#include "scheduler/store/records.pb.h"
#include "scheduler/store/store.h"
#include "scheduler/triggers/delivery_rates.h"
#include "scheduler/triggers/event.h"
#include "scheduler/triggers/trigger_definition.h"
#include "taskboard/v1/triggers.pb.h"

namespace taskboard::engine {

class Triggers {
 public:
  struct Options {
    store::Store* store = nullptr;           // the loop's view of the store
    TriggerRunSource* run_source = nullptr;  // null: triggers cannot be created
    TriggerMetrics* metrics = nullptr;       // may be null
    // --triggers-max-per-tenant, --triggers-max-runs-per-event and the
    // tenant's bucket (--triggers-tenant-per-minute, --triggers-tenant-burst).
    int64_t max_per_tenant = 1'000;
    int64_t max_runs_per_event = 10;
    double tenant_per_minute = 600;
    int64_t tenant_burst = 60;
  };

  // Who publishes an event: a token's tenant (or "" without
  // authentication), or nobody (nullopt): then only a signature can admit
  // it, to the triggers of any tenant whose secret it matches.
  struct Publisher {
    std::optional<std::string> tenant;
  };

  Triggers(Options options, LoopBatch* batch, RunManager* runs,
           const dispatch::WorkerRegistry* workers);
  Triggers(const Triggers&) = delete;
  Triggers& operator=(const Triggers&) = delete;

  // Reads every trigger back (recovery); one that no longer decodes is kept
  // on disk and skipped with a log line. The store's read error as is.
  absl::Status Load();

  // CreateTrigger: INVALID_ARGUMENT (every problem of the file),
  // ALREADY_EXISTS, NOT_FOUND (the saved flow), RESOURCE_EXHAUSTED (over
  // max_per_tenant), FAILED_PRECONDITION without a run source.
  absl::StatusOr<v1::Trigger> Create(const std::string& tenant, const std::string& source);
  // The file names the trigger; NOT_FOUND for an unknown one.
  absl::StatusOr<v1::Trigger> Update(const std::string& tenant, const std::string& source);
  absl::Status Delete(const std::string& tenant, const std::string& name);
  absl::StatusOr<v1::Trigger> Get(const std::string& tenant, const std::string& name);
  std::vector<v1::Trigger> List(const std::string& tenant);
  absl::StatusOr<std::vector<v1::TriggerDelivery>> Deliveries(const std::string& tenant,
                                                              const std::string& name);

  // PublishEvent: see scheduler.proto. `body` is the payload's bytes as
  // sent (signatures cover them); `event` holds it parsed.
  absl::StatusOr<v1::PublishEventResponse> Publish(const Publisher& publisher,
                                                   const triggers::Event& event,
                                                   const std::string& body);

  // Writes the records the batch touched; the engine calls it before each
  // commit.
  void Flush();

  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    store::TriggerRecord record;
    triggers::TriggerDefinition definition;
  };
  using Key = std::pair<std::string, std::string>;  // tenant, name

  // One trigger's delivery of an event; `started` counts the event's runs.
  store::TriggerDeliveryRecord Deliver(Entry& entry, const Publisher& publisher,
                                       const triggers::Event& event, const std::string& body,
                                       std::map<std::string, absl::Duration>& tenant_waits,
                                       int64_t& started, bool& auth_refused, bool& rate_refused);
  void Record(Entry& entry, const store::TriggerDeliveryRecord& delivery);
  absl::StatusOr<Entry*> Find(const std::string& tenant, const std::string& name);
  absl::Status CheckFlow(const std::string& tenant, const triggers::TriggerDefinition& definition);
  v1::Trigger View(const Entry& entry, bool details);
  v1::TriggerDelivery DeliveryView(const store::TriggerDeliveryRecord& delivery);
  void UpdateGauge();

  const Options options_;
  LoopBatch* const batch_;
  RunManager* const runs_;
  const dispatch::WorkerRegistry* const workers_;
  std::map<Key, Entry> entries_;
  std::set<Key> dirty_;
  triggers::DeliveryRates rates_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_TRIGGERS_TRIGGERS_H_
