#include "scheduler/engine/schedules/schedules.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log/log.h"
#include "scheduler/engine/core/stored_definitions.h"
#include "scheduler/engine/schedules/schedule_record.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/schedules/fire_time.h"
#include "scheduler/schedules/overlap_policy.h"
#include "scheduler/schedules/schedule_spec.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {
namespace {

// How often a schedule with fires waiting in its buffer looks whether the
// runs they wait for ended (runs do not tell the schedule).
constexpr int64_t kBufferPollMs = 1'000;
// The next fire times DescribeSchedule and ListSchedules show.
constexpr int kNextFireTimes = 10;

google::protobuf::Timestamp Stamp(absl::Time time) {
  google::protobuf::Timestamp stamp;
  const int64_t micros = absl::ToUnixMicros(time);
  stamp.set_seconds(micros / 1'000'000);
  stamp.set_nanos(static_cast<int32_t>(micros % 1'000'000) * 1000);
  if (stamp.nanos() < 0) {
    stamp.set_seconds(stamp.seconds() - 1);
    stamp.set_nanos(stamp.nanos() + 1'000'000'000);
  }
  return stamp;
}

// The first millisecond at or after `time`: a fire is due once the batch's
// time (whole milliseconds) reaches it.
int64_t CeilMillis(absl::Time time) {
  const int64_t floor = absl::ToUnixMillis(time);
  return absl::FromUnixMillis(floor) < time ? floor + 1 : floor;
}

absl::Status NoSchedule(const std::string& name) {
  return absl::NotFoundError(
      absl::StrCat("schedule '", name, "' not found; `taskboard schedules list` lists them"));
}

absl::StatusOr<schedules::OverlapPolicy> PolicyOr(const std::string& name,
                                                  schedules::OverlapPolicy fallback) {
  if (name.empty()) return fallback;
  std::optional<schedules::OverlapPolicy> policy = schedules::OverlapPolicyFromName(name);
  if (!policy.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("overlap policy '", name,
                     "' is unknown: use skip, buffer_one, buffer_all, cancel_other or allow_all"));
  }
  return *policy;
}

}  // namespace

Schedules::Schedules(Options options, LoopBatch* batch, RunManager* runs,
                     const dispatch::WorkerRegistry* workers)
    : options_(options), batch_(batch), runs_(runs), workers_(workers) {}

absl::Status Schedules::Load() {
  absl::Status loaded = LoadStoredDefinitions<store::ScheduleRecord>(
      *options_.store, store::keys::AllSchedules(), "schedule", schedules::LoadScheduleText,
      [this](store::ScheduleRecord record, schedules::ScheduleDefinition definition) {
        Entry entry{std::move(record), std::move(definition), std::nullopt, false};
        Recompute(entry);
        Key key{entry.record.tenant(), entry.record.name()};
        entries_.emplace(std::move(key), std::move(entry));
      });
  if (!loaded.ok()) return loaded;
  if (options_.metrics != nullptr) options_.metrics->SetSchedules(size());
  UpdateWake();
  return absl::OkStatus();
}

void Schedules::Recompute(Entry& entry) {
  const schedules::ScheduleState state = StateOf(entry.record);
  std::optional<absl::Time> nominal =
      schedules::NextNominalTime(entry.definition.spec, state.processed_through);
  entry.next_due.reset();
  if (nominal.has_value()) {
    entry.next_due = schedules::FireAt(entry.definition.spec, entry.record.name(), *nominal).actual;
  }
}

void Schedules::UpdateWake() {
  next_wake_ms_ = INT64_MAX;
  const int64_t now_ms = batch_->now_ms();
  for (const auto& [key, entry] : entries_) {
    if (entry.more) {
      next_wake_ms_ = now_ms;
      return;
    }
    if (entry.next_due.has_value()) {
      next_wake_ms_ = std::min(next_wake_ms_, CeilMillis(*entry.next_due));
    }
    if (entry.record.buffered_size() > 0) {
      next_wake_ms_ = std::min(next_wake_ms_, now_ms + kBufferPollMs);
    }
  }
}

void Schedules::Tick() {
  if (batch_->now_ms() < next_wake_ms_) return;
  const absl::Time now = batch_->now();
  for (auto& [key, entry] : entries_) {
    const bool due = entry.more || (entry.next_due.has_value() && *entry.next_due <= now);
    const bool waiting = entry.record.buffered_size() > 0;
    if (!due && !waiting) continue;
    const bool ended = ForgetEndedRuns(entry);
    if (due || ended) PlanDue(entry);
  }
  UpdateWake();
}

bool Schedules::ForgetEndedRuns(Entry& entry) {
  auto* running = entry.record.mutable_running_run_ids();
  const int before = running->size();
  std::vector<std::string> still;
  for (const std::string& run_id : *running) {
    const ActiveRun* active = runs_->active().Find(run_id);
    if (active != nullptr && !IsTerminal(active->state->record().run().status())) {
      still.push_back(run_id);
    }
  }
  if (static_cast<int>(still.size()) == before) return false;
  running->Clear();
  for (std::string& run_id : still) running->Add(std::move(run_id));
  return true;
}

void Schedules::PlanDue(Entry& entry) {
  ForgetEndedRuns(entry);
  schedules::FirePlan plan =
      schedules::PlanDueFires(entry.definition.spec, entry.record.name(), entry.definition.policies,
                              StateOf(entry.record), batch_->now());
  Apply(entry, plan, "");
  entry.record.set_processed_through_unix_us(absl::ToUnixMicros(plan.processed_through));
  if (plan.processed_through == absl::InfinitePast())
    entry.record.clear_processed_through_unix_us();
  entry.more = plan.more;
  Recompute(entry);
  Write(entry);
}

std::vector<store::ScheduleActionRecord> Schedules::Apply(Entry& entry,
                                                          const schedules::FirePlan& plan,
                                                          const std::string& manual) {
  schedules::ScheduleState state = StateOf(entry.record);
  std::vector<store::ScheduleActionRecord> actions;
  int64_t missed = 0;
  for (const schedules::FireDecision& decision : plan.decisions) {
    store::ScheduleActionRecord action;
    *action.mutable_fire() = FireRecordOf(decision.pending);
    action.set_action(std::string(schedules::FireActionName(decision.action)));
    action.set_at_unix_ms(batch_->now_ms());
    action.set_manual(manual);
    switch (decision.action) {
      case schedules::FireAction::kStart:
        StartFire(entry, decision.pending, manual, action, state);
        break;
      case schedules::FireAction::kBuffer:
        break;
      case schedules::FireAction::kSkipOverlap:
        entry.record.set_skipped(entry.record.skipped() + 1);
        if (options_.metrics != nullptr) options_.metrics->OverlapSkipped();
        break;
      case schedules::FireAction::kSkipPaused:
        entry.record.set_skipped(entry.record.skipped() + 1);
        break;
      case schedules::FireAction::kMissed:
        ++missed;
        break;
    }
    actions.push_back(action);
  }
  entry.record.set_missed(entry.record.missed() + missed);
  if (missed > 0 && options_.metrics != nullptr) options_.metrics->Missed(missed);
  if (missed > 0) {
    log::Warn("schedule fires missed: due longer than the catch-up window ago")
        .With("tenant", entry.record.tenant())
        .With("schedule", entry.record.name())
        .With("missed", missed);
  }
  for (const std::string& run_id : plan.cancel_run_ids) {
    if (ActiveRun* active = runs_->active().Find(run_id); active != nullptr) {
      runs_->CancelActive(*active->state,
                          absl::StrCat("cancelled by schedule '", entry.record.name(),
                                       "' (overlap policy cancel_other)"));
    }
  }
  state.buffered = plan.buffered;
  SetState(state, &entry.record);
  // A long catch-up records its missed fires in the counters; the recent
  // actions keep the newest of them.
  const size_t keep = std::min<size_t>(actions.size(), kRecentScheduleActions);
  for (size_t i = actions.size() - keep; i < actions.size(); ++i) {
    AddRecentAction(actions[i], &entry.record);
  }
  return actions;
}

void Schedules::StartFire(Entry& entry, const schedules::PendingFire& pending,
                          const std::string& manual, store::ScheduleActionRecord& action,
                          schedules::ScheduleState& state) {
  absl::Status failed;
  if (options_.run_source == nullptr) {
    failed = absl::FailedPreconditionError("this scheduler cannot start scheduled runs");
  } else {
    absl::StatusOr<SubmitRequest> request = options_.run_source->Prepare(
        entry.record.tenant(), entry.definition, pending.idempotency_key);
    if (request.ok()) {
      absl::StatusOr<SubmitResult> started = runs_->SubmitNow(*request, *workers_);
      if (started.ok()) {
        action.set_run_id(started->run_id);
        const ActiveRun* active = runs_->active().Find(started->run_id);
        if (active != nullptr && !IsTerminal(active->state->record().run().status())) {
          state.running_run_ids.push_back(started->run_id);
        }
        if (!started->existing) {
          entry.record.set_fires(entry.record.fires() + 1);
          if (options_.metrics != nullptr) {
            options_.metrics->Fired(manual, batch_->now() - pending.fire.actual);
          }
        }
        return;
      }
      failed = started.status();
    } else {
      failed = request.status();
    }
  }
  action.set_action("error");
  action.set_error(std::string(failed.message()));
  if (options_.metrics != nullptr) options_.metrics->StartFailed();
  log::Warn("schedule fire could not start its run")
      .With("tenant", entry.record.tenant())
      .With("schedule", entry.record.name())
      .With("fire_time", schedules::FormatFireTime(pending.fire.nominal))
      .With("error", failed.message());
}

void Schedules::Write(const Entry& entry) {
  batch_->writes().Put(store::Column::kMeta,
                       store::keys::Schedule(entry.record.tenant(), entry.record.name()),
                       entry.record.SerializeAsString());
}

absl::StatusOr<Schedules::Entry*> Schedules::Find(const std::string& tenant,
                                                  const std::string& name) {
  auto it = entries_.find(Key{tenant, name});
  if (it == entries_.end()) return NoSchedule(name);
  return &it->second;
}

absl::StatusOr<v1::Schedule> Schedules::Create(const std::string& tenant,
                                               const std::string& source) {
  absl::StatusOr<schedules::ScheduleDefinition> definition = schedules::LoadScheduleText(source);
  if (!definition.ok()) return definition.status();
  if (entries_.contains(Key{tenant, definition->name})) {
    return absl::AlreadyExistsError(
        absl::StrCat("schedule '", definition->name,
                     "' exists already; `taskboard schedules update` changes it"));
  }
  const int64_t owned = std::count_if(entries_.begin(), entries_.end(),
                                      [&](const auto& kv) { return kv.first.first == tenant; });
  if (owned >= options_.max_per_tenant) {
    return absl::ResourceExhaustedError(
        absl::StrCat("this tenant has ", owned, " schedules, the most --schedules-max-per-tenant (",
                     options_.max_per_tenant, ") allows; delete one or raise the flag"));
  }
  if (options_.run_source == nullptr) {
    return absl::FailedPreconditionError("this scheduler cannot start scheduled runs");
  }
  // The flow must exist and take the args now, not at the first fire.
  absl::StatusOr<SubmitRequest> check =
      options_.run_source->Prepare(tenant, *definition, "schedule-check");
  if (!check.ok()) return check.status();

  const absl::Time now = batch_->now();
  Entry entry;
  entry.record.set_tenant(tenant);
  entry.record.set_name(definition->name);
  entry.record.set_source(source);
  entry.record.set_created_unix_ms(batch_->now_ms());
  entry.record.set_updated_unix_ms(batch_->now_ms());
  schedules::ScheduleState state = schedules::NewScheduleState(now);
  state.paused = definition->paused;
  state.note = definition->note;
  SetState(state, &entry.record);
  entry.definition = *std::move(definition);
  Recompute(entry);
  Write(entry);
  log::Info("schedule created").With("tenant", tenant).With("schedule", entry.record.name());
  auto [it, inserted] = entries_.emplace(Key{tenant, entry.record.name()}, std::move(entry));
  if (options_.metrics != nullptr) options_.metrics->SetSchedules(size());
  UpdateWake();
  return View(it->second, true);
}

absl::StatusOr<v1::Schedule> Schedules::Update(const std::string& tenant,
                                               const std::string& source) {
  absl::StatusOr<schedules::ScheduleDefinition> definition = schedules::LoadScheduleText(source);
  if (!definition.ok()) return definition.status();
  absl::StatusOr<Entry*> entry = Find(tenant, definition->name);
  if (!entry.ok()) return entry.status();
  if (options_.run_source == nullptr) {
    return absl::FailedPreconditionError("this scheduler cannot start scheduled runs");
  }
  absl::StatusOr<SubmitRequest> check =
      options_.run_source->Prepare(tenant, *definition, "schedule-check");
  if (!check.ok()) return check.status();
  // What came due under the old definition is decided by it.
  PlanDue(**entry);
  (*entry)->record.set_source(source);
  (*entry)->record.set_updated_unix_ms(batch_->now_ms());
  (*entry)->definition = *std::move(definition);
  Recompute(**entry);
  Write(**entry);
  UpdateWake();
  return View(**entry, true);
}

absl::Status Schedules::Delete(const std::string& tenant, const std::string& name) {
  auto it = entries_.find(Key{tenant, name});
  if (it == entries_.end()) return NoSchedule(name);
  batch_->writes().Delete(store::Column::kMeta, store::keys::Schedule(tenant, name));
  entries_.erase(it);
  log::Info("schedule deleted").With("tenant", tenant).With("schedule", name);
  if (options_.metrics != nullptr) options_.metrics->SetSchedules(size());
  UpdateWake();
  return absl::OkStatus();
}

absl::StatusOr<v1::Schedule> Schedules::SetPaused(const std::string& tenant,
                                                  const std::string& name, bool paused,
                                                  const std::string& note) {
  absl::StatusOr<Entry*> entry = Find(tenant, name);
  if (!entry.ok()) return entry.status();
  // Fires due so far are decided under the old setting (schedule_state.h).
  PlanDue(**entry);
  schedules::ScheduleState state = StateOf((*entry)->record);
  if (paused) {
    schedules::Pause(&state, note);
  } else {
    schedules::Unpause(&state, note);
  }
  SetState(state, &(*entry)->record);
  Write(**entry);
  UpdateWake();
  return View(**entry, true);
}

absl::StatusOr<v1::ScheduleAction> Schedules::Trigger(const std::string& tenant,
                                                      const std::string& name,
                                                      const std::string& overlap) {
  absl::StatusOr<Entry*> entry = Find(tenant, name);
  if (!entry.ok()) return entry.status();
  absl::StatusOr<schedules::OverlapPolicy> policy =
      PolicyOr(overlap, (*entry)->definition.policies.overlap);
  if (!policy.ok()) return policy.status();
  ForgetEndedRuns(**entry);
  const absl::Time now = batch_->now();
  schedules::FirePlan plan = schedules::PlanTrigger(name, *policy, StateOf((*entry)->record), now);
  std::vector<store::ScheduleActionRecord> actions = Apply(**entry, plan, "trigger");
  Write(**entry);
  UpdateWake();
  const std::string key = schedules::TriggerIdempotencyKey(name, now);
  for (const store::ScheduleActionRecord& action : actions) {
    if (action.fire().idempotency_key() == key) return ActionView(action);
  }
  return absl::InternalError("the trigger's plan did not decide the trigger's fire");
}

absl::StatusOr<std::vector<v1::ScheduleAction>> Schedules::Backfill(const std::string& tenant,
                                                                    const std::string& name,
                                                                    absl::Time start,
                                                                    absl::Time end,
                                                                    const std::string& overlap) {
  absl::StatusOr<Entry*> entry = Find(tenant, name);
  if (!entry.ok()) return entry.status();
  absl::StatusOr<schedules::OverlapPolicy> policy =
      PolicyOr(overlap, (*entry)->definition.policies.overlap);
  if (!policy.ok()) return policy.status();
  if (end > batch_->now()) {
    return absl::InvalidArgumentError(
        absl::StrCat("backfill ends at ", schedules::FormatFireTime(end), ", after now (",
                     schedules::FormatFireTime(batch_->now()),
                     "): backfill covers past fire times; later ones fire on their own"));
  }
  ForgetEndedRuns(**entry);
  absl::StatusOr<schedules::FirePlan> plan = schedules::PlanBackfill(
      (*entry)->definition.spec, name, *policy, StateOf((*entry)->record), start, end);
  if (!plan.ok()) return plan.status();
  std::vector<store::ScheduleActionRecord> actions = Apply(**entry, *plan, "backfill");
  Write(**entry);
  UpdateWake();
  std::vector<v1::ScheduleAction> views;
  views.reserve(actions.size());
  for (const store::ScheduleActionRecord& action : actions) views.push_back(ActionView(action));
  return views;
}

absl::StatusOr<v1::Schedule> Schedules::Describe(const std::string& tenant,
                                                 const std::string& name) {
  absl::StatusOr<Entry*> entry = Find(tenant, name);
  if (!entry.ok()) return entry.status();
  return View(**entry, true);
}

std::vector<v1::Schedule> Schedules::List(const std::string& tenant) {
  std::vector<v1::Schedule> listed;
  for (auto it = entries_.lower_bound(Key{tenant, ""});
       it != entries_.end() && it->first.first == tenant; ++it) {
    listed.push_back(View(it->second, false));
  }
  return listed;
}

v1::ScheduleAction Schedules::ActionView(const store::ScheduleActionRecord& action) {
  v1::ScheduleAction view;
  *view.mutable_fire_time() = Stamp(absl::FromUnixMicros(action.fire().nominal_unix_us()));
  *view.mutable_due_time() = Stamp(absl::FromUnixMicros(action.fire().actual_unix_us()));
  view.set_action(action.action());
  view.set_run_id(action.run_id());
  *view.mutable_decided_at() = Stamp(absl::FromUnixMillis(action.at_unix_ms()));
  view.set_error(action.error());
  view.set_manual(action.manual());
  if (!action.run_id().empty()) {
    if (std::optional<v1::RunStatus> status = runs_->StatusOf(action.run_id())) {
      view.set_run_status(*status);
    }
  }
  return view;
}

v1::Schedule Schedules::View(const Entry& entry, bool details) {
  const store::ScheduleRecord& record = entry.record;
  const schedules::ScheduleDefinition& definition = entry.definition;
  v1::Schedule view;
  view.set_name(record.name());
  view.set_tenant(record.tenant());
  view.set_flow(definition.flow);
  view.set_flow_version(definition.flow_version.value_or(0));
  view.set_paused(record.paused());
  view.set_note(record.note());
  view.set_overlap(std::string(schedules::OverlapPolicyName(definition.policies.overlap)));
  view.set_catchup_window_seconds(absl::ToInt64Seconds(definition.policies.catchup_window));
  view.set_run_timeout_seconds(definition.run_timeout_seconds);
  const schedules::ScheduleState state = StateOf(record);
  // Fires already due are this batch's to decide (Tick); the view shows
  // what lies ahead.
  const absl::Time after = std::max(state.processed_through, batch_->now());
  for (const schedules::FireTime& fire :
       schedules::NextFireTimes(definition.spec, record.name(), after, kNextFireTimes)) {
    *view.add_next_fire_times() = Stamp(fire.actual);
  }
  for (const std::string& run_id : record.running_run_ids()) view.add_running_run_ids(run_id);
  view.set_buffered_fires(record.buffered_size());
  view.set_fires(record.fires());
  view.set_missed(record.missed());
  view.set_skipped(record.skipped());
  *view.mutable_created_at() = Stamp(absl::FromUnixMillis(record.created_unix_ms()));
  *view.mutable_updated_at() = Stamp(absl::FromUnixMillis(record.updated_unix_ms()));
  if (details) {
    view.set_source(record.source());
    for (auto it = record.recent_actions().rbegin(); it != record.recent_actions().rend(); ++it) {
      *view.add_recent_actions() = ActionView(*it);
    }
  }
  return view;
}

}  // namespace taskboard::engine
