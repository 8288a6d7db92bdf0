#include "scheduler/engine/ledger_book.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {

std::string LedgerTaskName(absl::string_view request_id, absl::string_view run_id,
                           absl::string_view task_id) {
  if (run_id.empty() || run_id == request_id) return std::string(task_id);
  return absl::StrCat(run_id, "/", task_id);
}

absl::StatusOr<policy::RequestLedger*> LedgerBook::Get(const std::string& request_id) {
  auto it = ledgers_.find(request_id);
  if (it != ledgers_.end()) return it->second.get();
  auto ledger = std::make_unique<policy::RequestLedger>(request_id);
  absl::Status restored = absl::OkStatus();
  absl::Status scanned = store_->ScanPrefix(
      store::Column::kLedger, store::keys::LedgerOfRequest(request_id),
      [&](absl::string_view /*key*/, absl::string_view value) {
        v1::Observation observation;
        if (!observation.ParseFromString(std::string(value))) {
          restored = absl::DataLossError(absl::StrCat("ledger of request ", request_id, ": entry ",
                                                      ledger->size() + 1, " does not parse"));
          return false;
        }
        restored = ledger->Restore(std::move(observation));
        return restored.ok();
      });
  if (!scanned.ok()) return scanned;
  if (!restored.ok()) {
    return absl::DataLossError(
        absl::StrCat("ledger of request ", request_id, ": ", restored.message()));
  }
  policy::RequestLedger* loaded = ledger.get();
  ledgers_.emplace(request_id, std::move(ledger));
  return loaded;
}

const v1::Observation& LedgerBook::Append(const std::string& request_id,
                                          v1::Observation observation, store::WriteBatch& batch) {
  policy::RequestLedger& ledger = *ledgers_.at(request_id);
  const v1::Observation& stored = ledger.Append(std::move(observation));
  const auto seq = static_cast<uint64_t>(stored.seq());
  batch.Put(store::Column::kLedger, store::keys::LedgerEntry(request_id, seq),
            stored.SerializeAsString());
  if (!stored.task_id().empty()) {
    batch.Put(store::Column::kLedger,
              store::keys::LedgerTaskIndex(
                  request_id, LedgerTaskName(request_id, stored.run_id(), stored.task_id()), seq),
              "");
  }
  return stored;
}

}  // namespace taskboard::engine
