#include "scheduler/engine/tool_calls/ledger_book.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {

absl::StatusOr<policy::RequestLedger*> LedgerBook::Get(const std::string& request_id) {
  auto it = ledgers_.find(request_id);
  if (it != ledgers_.end()) return it->second.get();
  auto ledger = std::make_unique<policy::RequestLedger>(request_id, this);
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
                  request_id,
                  store::keys::LedgerTaskName(request_id, stored.run_id(), stored.task_id()), seq),
              "");
  }
  return stored;
}

absl::StatusOr<std::vector<v1::Observation>> LedgerBook::Read(const std::string& request_id,
                                                              absl::Span<const int64_t> seqs) {
  std::vector<v1::Observation> observations(seqs.size());
  std::vector<size_t> missing;
  std::vector<std::string> keys;
  for (size_t i = 0; i < seqs.size(); ++i) {
    if (const v1::Observation* cached = cache_.Find(request_id, seqs[i])) {
      observations[i] = *cached;
      continue;
    }
    missing.push_back(i);
    keys.push_back(store::keys::LedgerEntry(request_id, static_cast<uint64_t>(seqs[i])));
  }
  if (missing.empty()) return observations;
  absl::StatusOr<std::vector<std::optional<std::string>>> values =
      store_->MultiGet(store::Column::kLedger, keys);
  if (!values.ok()) {
    return absl::Status(values.status().code(),
                        absl::StrCat("reading the ledger of request ", request_id,
                                     " from the store: ", values.status().message()));
  }
  for (size_t j = 0; j < missing.size(); ++j) {
    const size_t i = missing[j];
    const std::optional<std::string>& value = (*values)[j];
    v1::Observation& observation = observations[i];
    if (!value.has_value() || !observation.ParseFromString(*value) ||
        observation.seq() != seqs[i]) {
      return absl::DataLossError(absl::StrCat("ledger entry ", seqs[i], " of request ", request_id,
                                              " is missing or corrupt in the store"));
    }
    cache_.Put(request_id, observation);
  }
  return observations;
}

void LedgerBook::Appended(const std::string& request_id, const v1::Observation& observation) {
  cache_.Put(request_id, observation);
}

}  // namespace taskboard::engine
