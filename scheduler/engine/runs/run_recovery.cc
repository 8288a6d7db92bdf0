#include "scheduler/engine/runs/run_recovery.h"

#include <algorithm>
#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/log/log.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/engine/state/run_finish.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {

absl::StatusOr<RecoveredRuns> RunRecovery::Recover() {
  store::Store& store = *runs_->options().store;
  RecoveredRuns recovered;
  std::vector<std::string> active;
  std::vector<std::string> undecodable;
  // Runs stored before the run indexes existed are indexed once; otherwise
  // the scan collects nothing for them.
  absl::StatusOr<std::optional<std::string>> indexed =
      store.Get(store::Column::kMeta, store::keys::RunIndexesBuilt());
  const bool backfill = indexed.ok() && !indexed->has_value();
  std::vector<std::pair<std::string, int64_t>> finished_roots;
  std::vector<std::pair<std::string, std::string>> tenant_runs;
  absl::Status scanned =
      store.Scan(store::Column::kRuns, "", "", [&](absl::string_view key, absl::string_view value) {
        std::optional<std::string> run_id = store::keys::ParseRun(key);
        if (!run_id.has_value()) {
          log::Error("ignoring a stored run key that does not decode")
              .With("key", absl::CHexEscape(key));
          return true;
        }
        store::RunRecord record;
        const bool decoded = record.ParseFromArray(value.data(), static_cast<int>(value.size()));
        if (backfill && decoded && !record.tenant().empty()) {
          tenant_runs.emplace_back(record.tenant(), *run_id);
        }
        if (!decoded) {
          undecodable.push_back(*std::move(run_id));
        } else if (!IsTerminal(record.run().status())) {
          active.push_back(*std::move(run_id));
        } else if (backfill && record.run().parent_run_id().empty()) {
          const int64_t finished_ms = ToUnixMs(record.run().finished_at());
          finished_roots.emplace_back(*std::move(run_id),
                                      finished_ms > 0 ? finished_ms : record.created_unix_ms());
        }
        return true;
      });
  if (!scanned.ok()) return scanned;
  if (store.MayHaveLostWrites()) {
    log::Warn(
        "the store may have lost its last writes (no clean stop, and --durability wal "
        "with a machine restart, or none): event numbers of unfinished runs skip ahead so "
        "none is issued twice; their last results may run again")
        .With("runs", active.size())
        .With("skipped_seqs", kSeqGapAfterLostWrites);
  }
  if (backfill) BackfillRunIndexes(finished_roots, tenant_runs);
  // Each run is recovered on its own: one that cannot be is failed with the
  // reason and every other run goes on (a crash loop over one bad record
  // would stop every team's work).
  recovered.scanned = absl::Now();
  {
    // Loader threads read, parse and index the runs (run_loader.h); this
    // thread, the only one that touches the engine's state, takes them over
    // in scan order.
    RunLoader loader({&store, runs_->options().limits, recovery_threads_}, std::move(active));
    while (std::optional<LoadedRun> loaded = loader.Next()) {
      const std::string run_id = loaded->run_id;
      if (loaded->status.ok()) recovered.tasks += loaded->state->tasks().size();
      if (absl::Status taken = RecoverRun(*std::move(loaded)); !taken.ok()) {
        Quarantine(run_id, taken.message());
        recovered.quarantined = true;
      }
    }
  }
  recovered.loaded = absl::Now();
  for (const std::string& run_id : undecodable) {
    Quarantine(run_id, "its run record does not decode");
    recovered.quarantined = true;
  }
  return recovered;
}

void RunRecovery::BackfillRunIndexes(
    const std::vector<std::pair<std::string, int64_t>>& finished_roots,
    const std::vector<std::pair<std::string, std::string>>& tenant_runs) {
  store::WriteBatch& writes = batch_->writes();
  for (const auto& [run_id, finished_ms] : finished_roots) {
    writes.Put(store::Column::kMeta, store::keys::FinishedRun(finished_ms, run_id), "");
  }
  for (const auto& [tenant, run_id] : tenant_runs) {
    writes.Put(store::Column::kMeta, store::keys::TenantRun(tenant, run_id), "");
  }
  writes.Put(store::Column::kMeta, store::keys::RunIndexesBuilt(), "");
}

absl::Status RunRecovery::RecoverRun(LoadedRun loaded) {
  if (!loaded.status.ok()) return loaded.status;
  const std::string& run_id = loaded.run_id;
  RunState& run = *loaded.state;
  if (!run.record().idempotency_key().empty()) {
    runs_->idempotency().Remember(run.record().idempotency_key(), run_id);
  }
  // Events the previous process published may be gone from the store (a
  // power loss with --durability wal, any crash with none): their numbers
  // are skipped, never issued again to other events (decision 76).
  if (runs_->options().store->MayHaveLostWrites()) {
    store::RunRecord& record = run.MutableRecord();
    record.set_next_seq(std::max<int64_t>(record.next_seq(), 1) + kSeqGapAfterLostWrites);
    batch_->Touch(run_id);
  }
  // Accepted, then the scheduler stopped before its tasks were written.
  const bool start_pending = run.record().start_pending();
  ActiveRun& active =
      runs_->Activate(std::move(loaded.state), std::move(loaded.driver), std::move(loaded.spec));
  if (start_pending) runs_->starting().StartLater(active);
  rearm_(active);
  // Recovery read every task parsed; those that wait go back to their
  // serialized form (RunState::TaskSlot) before the next run loads.
  active.state->Freeze();
  return absl::OkStatus();
}

void RunRecovery::Quarantine(const std::string& run_id, absl::string_view reason) {
  store::Store& store = *runs_->options().store;
  // Whatever of the run can still be read is kept (its tenant, labels,
  // usage); its events go on after the last one stored, never over one.
  absl::StatusOr<store::RunRecord> stored = ReadRunRecord(store, run_id);
  store::RunRecord record = stored.ok() ? *std::move(stored) : store::RunRecord();
  v1::Run& view = *record.mutable_run();
  view.set_run_id(run_id);
  int64_t last_seq = view.last_seq();
  (void)store.ScanPrefix(
      store::Column::kEvents, store::keys::EventsOfRun(run_id),
      [&](absl::string_view key, absl::string_view) {
        if (std::optional<store::keys::SeqKey> event = store::keys::ParseEvent(key)) {
          last_seq = std::max(last_seq, static_cast<int64_t>(event->seq));
        }
        return true;
      });
  view.set_last_seq(last_seq);
  // Failed now: a run accepted and never started is not started later.
  record.set_start_pending(false);
  auto state = std::make_unique<RunState>(std::move(record));
  const std::string error = absl::StrCat("unrecoverable: ", reason);
  FinishRun(*state, v1::RUN_STATUS_FAILED, "", error, batch_->now_ms());
  log::Error("run quarantined: its records cannot be recovered; it is failed, other runs go on")
      .With("run_id", run_id)
      .With("error", error);
  if (EngineMetrics* metrics = runs_->options().metrics; metrics != nullptr) {
    metrics->RunQuarantined();
  }
  // Committed like any finished run (the commit drops it from memory again).
  runs_->active().Replace(std::move(state));
  batch_->Touch(run_id);
}

}  // namespace taskboard::engine
