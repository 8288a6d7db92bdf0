#ifndef TASKBOARD_TESTS_UNIT_ENGINE_LEDGER_READS_STORE_H_
#define TASKBOARD_TESTS_UNIT_ENGINE_LEDGER_READS_STORE_H_

// A store that counts the ledger entries read from it by point reads (Get
// and MultiGet on the ledger column; loading a ledger's indexes is a scan and
// not counted) and can be told to fail those reads, as a disk would.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tests/unit/engine/forwarding_store.h"

namespace taskboard::engine::testing {

class LedgerReadsStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;

  absl::StatusOr<std::optional<std::string>> Get(store::Column column,
                                                 absl::string_view key) override {
    if (column == store::Column::kLedger) {
      if (fail_reads) return InjectedError();
      ++entries_read;
    }
    return inner_.Get(column, key);
  }

  absl::StatusOr<std::vector<std::optional<std::string>>> MultiGet(
      store::Column column, absl::Span<const std::string> keys) override {
    if (column == store::Column::kLedger) {
      if (fail_reads) return InjectedError();
      ++multi_gets;
      entries_read += static_cast<int64_t>(keys.size());
    }
    return inner_.MultiGet(column, keys);
  }

  bool fail_reads = false;
  int64_t entries_read = 0;
  int64_t multi_gets = 0;

 private:
  static absl::Status InjectedError() {
    return absl::UnavailableError("RocksDB read failed: IO error: injected disk failure");
  }
};

}  // namespace taskboard::engine::testing

#endif  // TASKBOARD_TESTS_UNIT_ENGINE_LEDGER_READS_STORE_H_
