#include "scheduler/engine/triggers/triggers.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "common/log/log.h"
#include "scheduler/engine/core/stored_definitions.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/flow/dsl_text.h"
#include "scheduler/store/keys.h"
#include "scheduler/triggers/dedupe_key.h"
#include "scheduler/triggers/event_args.h"
#include "scheduler/triggers/event_filter.h"
#include "scheduler/triggers/hub_signature.h"
#include "scheduler/triggers/retry_after.h"
#include "scheduler/triggers/trigger_decoder.h"

namespace taskboard::engine {
namespace {

// Deliveries a trigger keeps (ListTriggerDeliveries), the newest last.
constexpr int kRecentTriggerDeliveries = 50;
// Of them, GetTrigger shows the newest.
constexpr int kDescribedDeliveries = 10;

constexpr char kAccepted[] = "accepted";
constexpr char kDeduped[] = "deduped";
constexpr char kRefused[] = "refused";
constexpr char kFiltered[] = "filtered";

google::protobuf::Timestamp StampMs(int64_t unix_ms) {
  google::protobuf::Timestamp stamp;
  stamp.set_seconds(unix_ms / 1000);
  stamp.set_nanos(static_cast<int32_t>(unix_ms % 1000) * 1'000'000);
  return stamp;
}

absl::Status NoTrigger(const std::string& name) {
  return absl::NotFoundError(
      absl::StrCat("trigger '", name, "' not found; `taskboard triggers list` lists them"));
}

// Whole seconds to wait, at least 1 (Retry-After has no fractions).
int64_t RetrySeconds(absl::Duration wait) {
  return std::max<int64_t>(1, absl::ToInt64Seconds(absl::Ceil(wait, absl::Seconds(1))));
}

// The trigger file as shown back: its secret replaced.
std::string Redacted(const std::string& source) {
  absl::StatusOr<Json> doc = flow::ParseDslText(source);
  if (!doc.ok()) return "";
  if (doc->is_object() && doc->contains("auth") && (*doc)["auth"].is_object() &&
      (*doc)["auth"].contains("hmacSecret")) {
    (*doc)["auth"]["hmacSecret"] = "<redacted>";
  }
  return DumpJsonPretty(*doc);
}

std::string DedupeText(const triggers::DedupeSource& dedupe) {
  if (!dedupe.header.empty()) return absl::StrCat("header ", dedupe.header);
  if (dedupe.path.has_value()) return absl::StrCat("path ", dedupe.path->text());
  return "";
}

}  // namespace

Triggers::Triggers(Options options, LoopBatch* batch, RunManager* runs,
                   const dispatch::WorkerRegistry* workers)
    : options_(options), batch_(batch), runs_(runs), workers_(workers) {}

absl::Status Triggers::Load() {
  absl::Status loaded = LoadStoredDefinitions<store::TriggerRecord>(
      *options_.store, store::keys::AllTriggers(), "trigger", triggers::LoadTriggerText,
      [this](store::TriggerRecord record, triggers::TriggerDefinition definition) {
        Key key{record.tenant(), record.name()};
        entries_.emplace(std::move(key), Entry{std::move(record), std::move(definition)});
      });
  if (!loaded.ok()) return loaded;
  UpdateGauge();
  return absl::OkStatus();
}

void Triggers::UpdateGauge() {
  if (options_.metrics != nullptr) options_.metrics->SetTriggers(size());
}

absl::StatusOr<Triggers::Entry*> Triggers::Find(const std::string& tenant,
                                                const std::string& name) {
  auto it = entries_.find(Key{tenant, name});
  if (it == entries_.end()) return NoTrigger(name);
  return &it->second;
}

absl::Status Triggers::CheckFlow(const std::string& tenant,
                                 const triggers::TriggerDefinition& definition) {
  if (options_.run_source == nullptr) {
    return absl::FailedPreconditionError("this scheduler cannot start triggered runs");
  }
  return options_.run_source->CheckFlow(tenant, definition.flow, definition.flow_version);
}

absl::StatusOr<v1::Trigger> Triggers::Create(const std::string& tenant, const std::string& source) {
  absl::StatusOr<triggers::TriggerDefinition> definition = triggers::LoadTriggerText(source);
  if (!definition.ok()) return definition.status();
  if (entries_.contains(Key{tenant, definition->name})) {
    return absl::AlreadyExistsError(absl::StrCat(
        "trigger '", definition->name, "' exists already; `taskboard triggers update` changes it"));
  }
  const int64_t owned = std::count_if(entries_.begin(), entries_.end(),
                                      [&](const auto& kv) { return kv.first.first == tenant; });
  if (owned >= options_.max_per_tenant) {
    return absl::ResourceExhaustedError(
        absl::StrCat("this tenant has ", owned, " triggers, the most --triggers-max-per-tenant (",
                     options_.max_per_tenant, ") allows; delete one or raise the flag"));
  }
  if (absl::Status flow = CheckFlow(tenant, *definition); !flow.ok()) return flow;
  Entry entry;
  entry.record.set_tenant(tenant);
  entry.record.set_name(definition->name);
  entry.record.set_source(source);
  entry.record.set_created_unix_ms(batch_->now_ms());
  entry.record.set_updated_unix_ms(batch_->now_ms());
  entry.definition = *std::move(definition);
  Key key{tenant, entry.record.name()};
  auto [it, inserted] = entries_.emplace(key, std::move(entry));
  dirty_.insert(key);
  log::Info("trigger created").With("tenant", tenant).With("trigger", key.second);
  UpdateGauge();
  return View(it->second, true);
}

absl::StatusOr<v1::Trigger> Triggers::Update(const std::string& tenant, const std::string& source) {
  absl::StatusOr<triggers::TriggerDefinition> definition = triggers::LoadTriggerText(source);
  if (!definition.ok()) return definition.status();
  absl::StatusOr<Entry*> entry = Find(tenant, definition->name);
  if (!entry.ok()) return entry.status();
  if (absl::Status flow = CheckFlow(tenant, *definition); !flow.ok()) return flow;
  (*entry)->record.set_source(source);
  (*entry)->record.set_updated_unix_ms(batch_->now_ms());
  (*entry)->definition = *std::move(definition);
  dirty_.insert(Key{tenant, (*entry)->record.name()});
  return View(**entry, true);
}

absl::Status Triggers::Delete(const std::string& tenant, const std::string& name) {
  auto it = entries_.find(Key{tenant, name});
  if (it == entries_.end()) return NoTrigger(name);
  batch_->writes().Delete(store::Column::kMeta, store::keys::Trigger(tenant, name));
  dirty_.erase(it->first);
  rates_.Forget(absl::StrCat("trigger/", tenant, "/", name));
  entries_.erase(it);
  log::Info("trigger deleted").With("tenant", tenant).With("trigger", name);
  UpdateGauge();
  return absl::OkStatus();
}

absl::StatusOr<v1::Trigger> Triggers::Get(const std::string& tenant, const std::string& name) {
  absl::StatusOr<Entry*> entry = Find(tenant, name);
  if (!entry.ok()) return entry.status();
  return View(**entry, true);
}

std::vector<v1::Trigger> Triggers::List(const std::string& tenant) {
  std::vector<v1::Trigger> listed;
  for (auto it = entries_.lower_bound(Key{tenant, ""});
       it != entries_.end() && it->first.first == tenant; ++it) {
    listed.push_back(View(it->second, false));
  }
  return listed;
}

absl::StatusOr<std::vector<v1::TriggerDelivery>> Triggers::Deliveries(const std::string& tenant,
                                                                      const std::string& name) {
  absl::StatusOr<Entry*> entry = Find(tenant, name);
  if (!entry.ok()) return entry.status();
  std::vector<v1::TriggerDelivery> views;
  const auto& deliveries = (*entry)->record.recent_deliveries();
  for (auto it = deliveries.rbegin(); it != deliveries.rend(); ++it) {
    views.push_back(DeliveryView(*it));
  }
  return views;
}

absl::StatusOr<v1::PublishEventResponse> Triggers::Publish(const Publisher& publisher,
                                                           const triggers::Event& event,
                                                           const std::string& body) {
  std::vector<Entry*> reached;
  for (auto& [key, entry] : entries_) {
    if (entry.definition.event != event.name) continue;
    // A token reaches its tenant's triggers; a signature alone, the signed
    // triggers of any tenant (the secret says whose).
    const bool reachable = publisher.tenant.has_value()
                               ? key.first == *publisher.tenant
                               : !entry.definition.auth.hmac_secret.empty();
    if (reachable) reached.push_back(&entry);
  }
  if (reached.empty()) {
    if (!publisher.tenant.has_value()) {
      return absl::UnauthenticatedError(absl::StrCat(
          "no signed trigger listens for event '", event.name,
          "': send a bearer token, or sign the body (X-Hub-Signature-256) with a trigger's "
          "secret"));
    }
    return absl::NotFoundError(absl::StrCat("no trigger of this tenant listens for event '",
                                            event.name, "'; `taskboard triggers list` lists them"));
  }
  v1::PublishEventResponse response;
  std::map<std::string, absl::Duration> tenant_waits;
  int64_t started = 0;
  bool all_auth_refused = true;
  bool all_rate_refused = true;
  absl::Duration shortest_wait = absl::InfiniteDuration();
  for (Entry* entry : reached) {
    bool auth_refused = false;
    bool rate_refused = false;
    store::TriggerDeliveryRecord delivery =
        Deliver(*entry, publisher, event, body, tenant_waits, started, auth_refused, rate_refused);
    all_auth_refused = all_auth_refused && auth_refused;
    all_rate_refused = all_rate_refused && rate_refused;
    if (rate_refused) {
      shortest_wait = std::min(shortest_wait, absl::Seconds(delivery.retry_after_seconds()));
    }
    Record(*entry, delivery);
    v1::TriggerOutcome* outcome = response.add_outcomes();
    outcome->set_trigger(entry->record.name());
    *outcome->mutable_delivery() = DeliveryView(delivery);
  }
  response.set_started(started);
  if (all_auth_refused) {
    return absl::UnauthenticatedError(
        absl::StrCat("no trigger of event '", event.name,
                     "' admitted the event: ", response.outcomes(0).delivery().reason()));
  }
  if (all_rate_refused) {
    const int64_t seconds = RetrySeconds(shortest_wait);
    absl::Status limited = absl::ResourceExhaustedError(
        absl::StrCat("event '", event.name, "' is over its triggers' rate: ",
                     response.outcomes(0).delivery().reason(), "; retry in ", seconds, " s"));
    v1::RetryAfter retry;
    retry.set_seconds(seconds);
    limited.SetPayload(triggers::kRetryAfterPayloadUrl, absl::Cord(retry.SerializeAsString()));
    return limited;
  }
  return response;
}

store::TriggerDeliveryRecord Triggers::Deliver(Entry& entry, const Publisher& publisher,
                                               const triggers::Event& event,
                                               const std::string& body,
                                               std::map<std::string, absl::Duration>& tenant_waits,
                                               int64_t& started, bool& auth_refused,
                                               bool& rate_refused) {
  const triggers::TriggerDefinition& definition = entry.definition;
  const std::string& tenant = entry.record.tenant();
  store::TriggerDeliveryRecord delivery;
  delivery.set_at_unix_ms(batch_->now_ms());
  auto refuse = [&delivery](std::string reason) {
    delivery.set_outcome(kRefused);
    delivery.set_reason(std::move(reason));
    return delivery;
  };
  // Who sent it: the signature first (docs/schedules.md#who-may-publish).
  const std::string signature = event.Header(triggers::kHubSignatureHeader);
  if (!definition.auth.hmac_secret.empty()) {
    const bool signed_ok = !signature.empty() && triggers::HubSignatureMatches(
                                                     definition.auth.hmac_secret, body, signature);
    const bool bearer_ok = definition.auth.bearer && publisher.tenant.has_value();
    if (!signed_ok && !bearer_ok) {
      auth_refused = true;
      return refuse(signature.empty()
                        ? "no X-Hub-Signature-256 header: this trigger takes signed events only"
                        : "the X-Hub-Signature-256 signature does not match this trigger's secret");
    }
  }
  if (definition.paused) return refuse("the trigger is paused");
  // The tenant's bucket, charged once per event.
  auto charged = tenant_waits.find(tenant);
  if (charged == tenant_waits.end()) {
    charged = tenant_waits
                  .emplace(tenant,
                           rates_.Take(absl::StrCat("tenant/", tenant), options_.tenant_per_minute,
                                       options_.tenant_burst, batch_->now()))
                  .first;
    if (charged->second > absl::ZeroDuration() && options_.metrics != nullptr) {
      options_.metrics->RateLimited("tenant");
    }
  }
  if (charged->second > absl::ZeroDuration()) {
    rate_refused = true;
    delivery.set_retry_after_seconds(RetrySeconds(charged->second));
    return refuse(absl::StrCat("the tenant is over --triggers-tenant-per-minute (",
                               options_.tenant_per_minute, " events a minute)"));
  }
  if (std::optional<std::string> mismatch = triggers::FilterMismatch(definition.filter, event)) {
    delivery.set_outcome(kFiltered);
    delivery.set_reason(*std::move(mismatch));
    return delivery;
  }
  const absl::Duration wait =
      rates_.Take(absl::StrCat("trigger/", tenant, "/", definition.name),
                  definition.rate.per_minute, definition.rate.burst, batch_->now());
  if (wait > absl::ZeroDuration()) {
    rate_refused = true;
    if (options_.metrics != nullptr) options_.metrics->RateLimited("trigger");
    delivery.set_retry_after_seconds(RetrySeconds(wait));
    return refuse(absl::StrCat("over the trigger's rate (", definition.rate.per_minute,
                               " a minute, ", definition.rate.burst, " at once)"));
  }
  absl::StatusOr<std::optional<std::string>> key =
      triggers::DedupeKey(definition.name, definition.dedupe, event);
  if (!key.ok()) return refuse(std::string(key.status().message()));
  if (key->has_value()) {
    delivery.set_dedupe((*key)->substr(absl::StrCat("trigger:", definition.name, ":").size()));
  }
  absl::StatusOr<Json> args = triggers::MapEventArgs(definition.args, event.payload);
  if (!args.ok()) return refuse(std::string(args.status().message()));
  if (started >= options_.max_runs_per_event) {
    return refuse(absl::StrCat("this event already started ", started,
                               " runs, the most --triggers-max-runs-per-event allows"));
  }
  if (options_.run_source == nullptr) return refuse("this scheduler cannot start triggered runs");
  TriggerRun run{definition.name, definition.flow, definition.flow_version, *std::move(args),
                 definition.labels};
  absl::StatusOr<SubmitRequest> request =
      options_.run_source->Prepare(tenant, run, key->value_or(""));
  if (!request.ok()) return refuse(std::string(request.status().message()));
  absl::StatusOr<SubmitResult> submitted = runs_->SubmitNow(*request, *workers_);
  if (!submitted.ok()) return refuse(std::string(submitted.status().message()));
  delivery.set_run_id(submitted->run_id);
  if (submitted->existing) {
    delivery.set_outcome(kDeduped);
    delivery.set_reason(absl::StrCat("run ", submitted->run_id,
                                     " was started by an earlier delivery with this dedupe key"));
    return delivery;
  }
  ++started;
  delivery.set_outcome(kAccepted);
  return delivery;
}

void Triggers::Record(Entry& entry, const store::TriggerDeliveryRecord& delivery) {
  store::TriggerRecord& record = entry.record;
  const std::string& outcome = delivery.outcome();
  if (outcome == kAccepted) record.set_accepted(record.accepted() + 1);
  if (outcome == kDeduped) record.set_deduped(record.deduped() + 1);
  if (outcome == kRefused) record.set_refused(record.refused() + 1);
  if (outcome == kFiltered) record.set_filtered(record.filtered() + 1);
  auto* deliveries = record.mutable_recent_deliveries();
  *deliveries->Add() = delivery;
  if (deliveries->size() > kRecentTriggerDeliveries) {
    deliveries->DeleteSubrange(0, deliveries->size() - kRecentTriggerDeliveries);
  }
  dirty_.insert(Key{record.tenant(), record.name()});
  if (options_.metrics != nullptr) options_.metrics->Delivered(outcome);
  if (outcome == kRefused) {
    log::Info("trigger refused an event")
        .With("tenant", record.tenant())
        .With("trigger", record.name())
        .With("reason", delivery.reason());
  }
}

void Triggers::Flush() {
  for (const Key& key : dirty_) {
    auto it = entries_.find(key);
    if (it == entries_.end()) continue;
    batch_->writes().Put(store::Column::kMeta, store::keys::Trigger(key.first, key.second),
                         it->second.record.SerializeAsString());
  }
  dirty_.clear();
}

v1::TriggerDelivery Triggers::DeliveryView(const store::TriggerDeliveryRecord& delivery) {
  v1::TriggerDelivery view;
  *view.mutable_at() = StampMs(delivery.at_unix_ms());
  view.set_outcome(delivery.outcome());
  view.set_reason(delivery.reason());
  view.set_run_id(delivery.run_id());
  view.set_dedupe(delivery.dedupe());
  view.set_retry_after_seconds(delivery.retry_after_seconds());
  if (!delivery.run_id().empty()) {
    if (std::optional<v1::RunStatus> status = runs_->StatusOf(delivery.run_id())) {
      view.set_run_status(*status);
    }
  }
  return view;
}

v1::Trigger Triggers::View(const Entry& entry, bool details) {
  const store::TriggerRecord& record = entry.record;
  const triggers::TriggerDefinition& definition = entry.definition;
  v1::Trigger view;
  view.set_name(record.name());
  view.set_tenant(record.tenant());
  view.set_event(definition.event);
  view.set_flow(definition.flow);
  view.set_flow_version(definition.flow_version.value_or(0));
  view.set_paused(definition.paused);
  view.set_hmac_secret_set(!definition.auth.hmac_secret.empty());
  view.set_bearer(definition.auth.bearer);
  view.set_dedupe(DedupeText(definition.dedupe));
  view.set_rate_per_minute(definition.rate.per_minute);
  view.set_rate_burst(definition.rate.burst);
  view.set_accepted(record.accepted());
  view.set_deduped(record.deduped());
  view.set_refused(record.refused());
  view.set_filtered(record.filtered());
  *view.mutable_created_at() = StampMs(record.created_unix_ms());
  *view.mutable_updated_at() = StampMs(record.updated_unix_ms());
  if (details) {
    view.set_source(Redacted(record.source()));
    const auto& deliveries = record.recent_deliveries();
    int shown = 0;
    for (auto it = deliveries.rbegin(); it != deliveries.rend() && shown < kDescribedDeliveries;
         ++it, ++shown) {
      *view.add_recent_deliveries() = DeliveryView(*it);
    }
  }
  return view;
}

}  // namespace taskboard::engine
