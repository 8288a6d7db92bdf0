#ifndef TASKBOARD_SCHEDULER_ENGINE_CORE_STORED_DEFINITIONS_H_
#define TASKBOARD_SCHEDULER_ENGINE_CORE_STORED_DEFINITIONS_H_

// Reads back, at recovery, the tenants' stored definitions of one kind:
// schedules (schedules/schedules.h) and triggers (triggers/triggers.h) keep
// each file as a record in the meta column with the text the tenant sent
// (tenant, name, source) and decode that text again on every load. Both load
// alike, so the rule lives here once: a record that does not parse, or whose
// text no longer decodes (a newer scheduler wrote it), is logged and skipped,
// and stays on disk: one bad record must not stop a restart. Here, in
// core/, because schedules/ and triggers/ stand side by side and may not
// include each other (docs/design.md#dependency-order).

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/log/log.h"
#include "scheduler/store/store.h"

namespace taskboard::engine {

// Calls `keep(record, definition)` for each `Record` (a proto with tenant(),
// name() and source()) under `prefix` in the meta column whose source
// `decode` (text -> absl::StatusOr<Definition>) accepts, in key order.
// `kind` ("schedule", "trigger") names them in the log lines. Returns the
// store's read error as is; nothing is kept then.
template <typename Record, typename Decode, typename Keep>
absl::Status LoadStoredDefinitions(store::Store& store, absl::string_view prefix,
                                   absl::string_view kind, Decode decode, Keep keep) {
  std::vector<Record> records;
  absl::Status scanned = store.ScanPrefix(
      store::Column::kMeta, prefix, [&](absl::string_view key, absl::string_view value) {
        Record record;
        if (!record.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
          log::Error(absl::StrCat(kind, " record does not parse; skipped"))
              .With("key_bytes", key.size());
          return true;
        }
        records.push_back(std::move(record));
        return true;
      });
  if (!scanned.ok()) return scanned;
  for (Record& record : records) {
    auto definition = decode(record.source());
    if (!definition.ok()) {
      log::Error(absl::StrCat("stored ", kind, " does not decode; skipped"))
          .With("tenant", record.tenant())
          .With(kind, record.name())
          .With("error", definition.status().message());
      continue;
    }
    keep(std::move(record), *std::move(definition));
  }
  return absl::OkStatus();
}

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_CORE_STORED_DEFINITIONS_H_
