#include "scheduler/engine/runs/run_loader.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {

absl::StatusOr<std::unique_ptr<RunState>> ReadRunState(store::Store& store,
                                                       const std::string& run_id) {
  absl::StatusOr<store::RunRecord> record = ReadRunRecord(store, run_id);
  if (!record.ok()) return record.status();
  if (absl::Status phases = ReadRunPhases(store, *record); !phases.ok()) return phases;
  auto state = std::make_unique<RunState>(*std::move(record));
  std::optional<std::string> corrupt_task;
  std::vector<RunState::StoredTask> tasks;
  absl::Status scanned = store.ScanPrefixOnce(
      store::Column::kTasks, store::keys::TasksOfRun(run_id),
      [&](absl::string_view key, absl::string_view value) {
        store::TaskRecord task;
        if (!task.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
          std::optional<store::keys::TaskKey> parsed = store::keys::ParseTask(key);
          corrupt_task = parsed.has_value() ? parsed->task_id : absl::CHexEscape(key);
          return false;
        }
        tasks.push_back({std::move(task), std::string(value)});
        return true;
      });
  if (!scanned.ok()) return scanned;
  if (corrupt_task.has_value()) {
    return absl::DataLossError(
        absl::StrCat("run ", run_id, ": the record of task '", *corrupt_task, "' does not decode"));
  }
  state->LoadTasks(std::move(tasks));
  return state;
}

absl::StatusOr<v1::FlowSpec> ReadRunSpec(store::Store& store, const std::string& run_id) {
  absl::StatusOr<std::optional<std::string>> stored =
      store.Get(store::Column::kMeta, store::keys::RunSpec(run_id));
  if (!stored.ok()) return stored.status();
  v1::FlowSpec spec;
  if (!stored->has_value() || !spec.ParseFromString(**stored)) {
    return absl::DataLossError(absl::StrCat("run ", run_id, ": its flow spec is missing"));
  }
  return spec;
}

RunLoader::RunLoader(Options options, std::vector<std::string> run_ids)
    : options_(std::move(options)),
      run_ids_(std::move(run_ids)),
      window_(2 * static_cast<size_t>(std::max(1, options_.threads))),
      loaded_(run_ids_.size()) {
  const size_t threads =
      std::min(run_ids_.size(), static_cast<size_t>(std::max(1, options_.threads)));
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
}

RunLoader::~RunLoader() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    changed_.SignalAll();
  }
  for (std::thread& thread : threads_) thread.join();
}

std::optional<LoadedRun> RunLoader::Next() {
  absl::MutexLock lock(&mu_);
  if (consumed_ == run_ids_.size()) return std::nullopt;
  const size_t index = consumed_;
  while (!loaded_[index].has_value()) changed_.Wait(&mu_);
  LoadedRun run = *std::move(loaded_[index]);
  loaded_[index].reset();
  ++consumed_;
  changed_.SignalAll();  // a loader may claim one more
  return run;
}

void RunLoader::Work() {
  while (true) {
    size_t index;
    {
      absl::MutexLock lock(&mu_);
      // Not further ahead of the caller than the window: loaded runs wait
      // in memory until the caller takes them.
      while (!stopping_ && claimed_ < run_ids_.size() && claimed_ >= consumed_ + window_) {
        changed_.Wait(&mu_);
      }
      if (stopping_ || claimed_ == run_ids_.size()) return;
      index = claimed_++;
    }
    LoadedRun run = Load(run_ids_[index]);
    absl::MutexLock lock(&mu_);
    loaded_[index] = std::move(run);
    changed_.SignalAll();
  }
}

LoadedRun RunLoader::Load(const std::string& run_id) const {
  LoadedRun run;
  run.run_id = run_id;
  absl::StatusOr<std::unique_ptr<RunState>> state = ReadRunState(*options_.store, run_id);
  if (!state.ok()) {
    run.status = state.status();
    return run;
  }
  absl::StatusOr<v1::FlowSpec> spec = ReadRunSpec(*options_.store, run_id);
  if (!spec.ok()) {
    run.status = spec.status();
    return run;
  }
  // The driver is built here too: for a board it indexes every task of the
  // spec, as much work as reading them.
  absl::StatusOr<std::unique_ptr<Driver>> driver = MakeDriver(*spec, options_.limits);
  if (!driver.ok()) {
    run.status = driver.status();
    return run;
  }
  run.state = *std::move(state);
  run.spec = *std::move(spec);
  run.driver = *std::move(driver);
  return run;
}

}  // namespace taskboard::engine
