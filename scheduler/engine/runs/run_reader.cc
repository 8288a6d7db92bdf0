#include "scheduler/engine/runs/run_reader.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/engine/state/run_trace.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/store/keys.h"
#include "scheduler/store/records.pb.h"

namespace taskboard::engine {
absl::Status RunNotFoundError(absl::string_view run_id) {
  return absl::NotFoundError(
      absl::StrCat("run ", run_id, " not found; list runs with `taskboard runs`"));
}

absl::StatusOr<store::RunRecord> ReadRunRecord(store::Store& store, const std::string& run_id) {
  absl::StatusOr<std::optional<std::string>> stored =
      store.Get(store::Column::kRuns, store::keys::Run(run_id));
  if (!stored.ok()) return stored.status();
  if (!stored->has_value()) return RunNotFoundError(run_id);
  store::RunRecord record;
  if (!record.ParseFromString(**stored)) {
    return absl::DataLossError(absl::StrCat("run ", run_id, ": stored record is corrupt"));
  }
  return record;
}

absl::Status ReadRunPhases(store::Store& store, store::RunRecord& record, bool with_items) {
  const std::string& run_id = record.run().run_id();
  bool corrupt = false;
  absl::Status scanned = store.ScanPrefix(store::Column::kMeta, store::keys::RunPhases(run_id),
                                          [&](absl::string_view, absl::string_view value) {
                                            corrupt = !record.add_phases()->ParseFromArray(
                                                value.data(), static_cast<int>(value.size()));
                                            return !corrupt;
                                          });
  if (!scanned.ok()) return scanned;
  if (corrupt) {
    return absl::DataLossError(absl::StrCat("run ", run_id, ": a stored phase record is corrupt"));
  }
  // A fanned-out phase's items live under their own key (records.proto
  // PhaseItems); a record stored before that split has them inline.
  for (int i = 0; with_items && i < record.phases_size(); ++i) {
    store::PhaseRecord& phase = *record.mutable_phases(i);
    if (phase.status().type() != v1::PHASE_TYPE_MAP || !phase.fanned_out() ||
        phase.items_size() > 0) {
      continue;
    }
    absl::StatusOr<std::optional<std::string>> items = store.Get(
        store::Column::kMeta, store::keys::RunPhaseItems(run_id, static_cast<uint64_t>(i)));
    if (!items.ok()) return items.status();
    if (!items->has_value()) continue;
    store::PhaseItems stored;
    if (!stored.ParseFromString(**items)) {
      return absl::DataLossError(
          absl::StrCat("run ", run_id, ": the stored items of phase ", i, " are corrupt"));
    }
    phase.mutable_items()->Swap(stored.mutable_items());
  }
  return absl::OkStatus();
}

namespace {

// The public view of a record, without tasks.
v1::Run ViewOf(store::RunRecord& record) {
  v1::Run run = std::move(*record.mutable_run());
  // Pattern runs: where the run is, as its board_meta events name it.
  run.set_board_meta(record.pattern_phase());
  run.set_tenant(record.tenant());
  // Only a sampled run has spans to look at: an unsampled one's trace id
  // would link to nothing (docs/console.md#trace-links).
  if (const store::RunTrace& trace = record.trace(); trace.sampled() && IsTraced(trace)) {
    run.set_trace_id(RunSpanContext(trace).trace_id.Hex());
  }
  for (store::PhaseRecord& phase : *record.mutable_phases()) {
    *run.add_phases() = std::move(*phase.mutable_status());
  }
  return run;
}

bool Matches(const v1::Run& run, const v1::ListRunsRequest& request) {
  if (!request.statuses().empty()) {
    bool any = false;
    for (int status : request.statuses()) any = any || status == run.status();
    if (!any) return false;
  }
  if (!request.flow_name().empty() && run.flow_name() != request.flow_name()) return false;
  if (!request.parent_run_id().empty() && run.parent_run_id() != request.parent_run_id()) {
    return false;
  }
  for (const auto& [key, value] : request.labels()) {
    auto it = run.labels().find(key);
    if (it == run.labels().end() || it->second != value) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<v1::Run> ReadRun(store::Store& store, const std::string& run_id, bool with_tasks) {
  absl::StatusOr<store::RunRecord> record = ReadRunRecord(store, run_id);
  if (!record.ok()) return record.status();
  // A board has a phase per task: without its tasks, its phases are left
  // out too, or the read would still cost one key per task.
  if (with_tasks || record->run().kind() != v1::FLOW_KIND_BOARD) {
    if (absl::Status phases = ReadRunPhases(store, *record, /*with_items=*/false); !phases.ok()) {
      return phases;
    }
  }
  v1::Run run = ViewOf(*record);
  absl::StatusOr<std::optional<std::string>> spec =
      store.Get(store::Column::kMeta, store::keys::RunSpec(run_id));
  if (!spec.ok()) return spec.status();
  if (spec->has_value()) run.mutable_spec()->ParseFromString(**spec);
  // Without tasks, the counts are the record's own (the engine keeps them
  // with every change, as ListRuns shows them).
  if (!with_tasks) return run;
  int total = 0;
  int done = 0;
  absl::Status scanned =
      store.ScanPrefix(store::Column::kTasks, store::keys::TasksOfRun(run_id),
                       [&](absl::string_view, absl::string_view value) {
                         store::TaskRecord task;
                         if (!task.ParseFromArray(value.data(), static_cast<int>(value.size())))
                           return true;
                         ++total;
                         if (IsTerminal(task.task().state())) ++done;
                         *run.add_tasks() = std::move(*task.mutable_task());
                         return true;
                       });
  if (!scanned.ok()) return scanned;
  run.set_tasks_total(total);
  run.set_tasks_done(done);
  return run;
}

absl::StatusOr<v1::ListRunsResponse> ListRuns(store::Store& store,
                                              const v1::ListRunsRequest& request,
                                              const std::optional<std::string>& tenant) {
  if (request.page_size() > 500 || request.page_size() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size ", request.page_size(), " is out of range; use 1..500"));
  }
  int limit = request.page_size() == 0 ? 50 : request.page_size();
  v1::ListRunsResponse response;
  std::string last;
  std::vector<store::RunRecord> listed;
  // Newest first; true to go on.
  const auto consider = [&](store::RunRecord record) {
    if (!Matches(record.run(), request)) return true;
    if (tenant.has_value() && record.tenant() != *tenant) return true;
    if (static_cast<int>(listed.size()) == limit) {
      response.set_next_page_token(last);
      return false;
    }
    last = record.run().run_id();
    listed.push_back(std::move(record));
    return true;
  };
  absl::Status scanned;
  if (tenant.has_value()) {
    // One tenant's runs through its index: other tenants' are never read.
    const std::string prefix = store::keys::TenantRuns(*tenant);
    const std::string end = request.page_token().empty()
                                ? store::PrefixEnd(prefix)
                                : store::keys::TenantRun(*tenant, request.page_token());
    absl::Status read;
    scanned = store.ScanReverse(
        store::Column::kMeta, prefix, end, [&](absl::string_view key, absl::string_view) {
          std::optional<std::string> run_id = store::keys::ParseTenantRun(*tenant, key);
          if (!run_id.has_value()) return true;
          absl::StatusOr<store::RunRecord> record = ReadRunRecord(store, *run_id);
          if (absl::IsNotFound(record.status()) || absl::IsDataLoss(record.status())) return true;
          if (!record.ok()) {
            read = record.status();
            return false;
          }
          return consider(*std::move(record));
        });
    if (scanned.ok()) scanned = read;
  } else {
    const std::string end =
        request.page_token().empty() ? "" : store::keys::Run(request.page_token());
    scanned = store.ScanReverse(
        store::Column::kRuns, "", end, [&](absl::string_view, absl::string_view value) {
          store::RunRecord record;
          if (!record.ParseFromArray(value.data(), static_cast<int>(value.size()))) return true;
          return consider(std::move(record));
        });
  }
  if (!scanned.ok()) return scanned;
  for (store::RunRecord& record : listed) {
    // A board has a phase per task: listing them would make a list of runs
    // cost as much as reading every task (GetRun has them).
    if (record.run().kind() != v1::FLOW_KIND_BOARD) {
      if (absl::Status phases = ReadRunPhases(store, record, /*with_items=*/false); !phases.ok()) {
        return phases;
      }
    }
    *response.add_runs() = ViewOf(record);
  }
  return response;
}

absl::StatusOr<v1::GetTaskResponse> ReadTask(store::Store& store, const std::string& run_id,
                                             const std::string& task_id) {
  absl::StatusOr<std::optional<std::string>> stored =
      store.Get(store::Column::kTasks, store::keys::Task(run_id, task_id));
  if (!stored.ok()) return stored.status();
  if (!stored->has_value()) {
    absl::StatusOr<store::RunRecord> run = ReadRunRecord(store, run_id);
    if (!run.ok()) return run.status();
    return absl::NotFoundError(absl::StrCat("run ", run_id, " has no task '", task_id,
                                            "'; `taskboard show ", run_id, "` lists its tasks"));
  }
  store::TaskRecord task;
  if (!task.ParseFromString(**stored)) {
    return absl::DataLossError(absl::StrCat("task ", run_id, "/", task_id, " is corrupt"));
  }
  v1::GetTaskResponse response;
  *response.mutable_task() = std::move(*task.mutable_task());
  *response.mutable_execution() = std::move(*task.mutable_execution());
  if (response.execution().prompt().empty()) {
    response.mutable_execution()->set_prompt(task.assignment().prompt());
  }
  response.set_input_json(task.assignment().input_json());
  if (absl::Status read = ReadTaskToolWork(store, run_id, task_id, response); !read.ok()) {
    return read;
  }
  return response;
}

absl::Status ReadTaskToolWork(store::Store& store, const std::string& run_id,
                              const std::string& task_id, v1::GetTaskResponse& response) {
  absl::StatusOr<std::optional<std::string>> prior =
      store.Get(store::Column::kMeta, store::keys::PriorWork(run_id, task_id));
  if (!prior.ok()) return prior.status();
  if (prior->has_value() && !response.mutable_prior_work()->ParseFromString(**prior)) {
    return absl::DataLossError(
        absl::StrCat("prior work of task ", run_id, "/", task_id, " is corrupt"));
  }
  absl::StatusOr<store::RunRecord> run = ReadRunRecord(store, run_id);
  if (!run.ok()) return run.status();
  const std::string& root = run->run().root_run_id();
  const std::string request_id = root.empty() ? run_id : root;
  const std::string ledger_name = store::keys::LedgerTaskName(request_id, run_id, task_id);
  std::vector<uint64_t> seqs;
  absl::Status scanned = store.ScanPrefix(
      store::Column::kLedger, store::keys::LedgerIndexOfTask(request_id, ledger_name),
      [&](absl::string_view key, absl::string_view) {
        if (std::optional<uint64_t> seq = store::keys::TrailingSeq(key)) seqs.push_back(*seq);
        return true;
      });
  if (!scanned.ok()) return scanned;
  for (uint64_t seq : seqs) {
    absl::StatusOr<std::optional<std::string>> entry =
        store.Get(store::Column::kLedger, store::keys::LedgerEntry(request_id, seq));
    if (!entry.ok()) return entry.status();
    if (!entry->has_value() || !response.add_tool_calls()->ParseFromString(**entry)) {
      return absl::DataLossError(
          absl::StrCat("ledger entry ", seq, " of request ", request_id, " is missing or corrupt"));
    }
  }
  return absl::OkStatus();
}

absl::Status ReadEvents(store::Store& store, const std::string& run_id, int64_t after_seq,
                        const std::function<bool(v1::RunEvent&)>& visit) {
  std::string start = store::keys::Event(run_id, static_cast<uint64_t>(after_seq + 1));
  std::string end = store::PrefixEnd(store::keys::EventsOfRun(run_id));
  return store.Scan(store::Column::kEvents, start, end,
                    [&](absl::string_view, absl::string_view value) {
                      v1::RunEvent event;
                      if (!event.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
                        return true;
                      }
                      return visit(event);
                    });
}

}  // namespace taskboard::engine
