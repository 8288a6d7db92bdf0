#ifndef TASKBOARD_TESTS_UNIT_ENGINE_FORWARDING_STORE_H_
#define TASKBOARD_TESTS_UNIT_ENGINE_FORWARDING_STORE_H_

// A store that passes everything to another one: tests derive from it to
// watch or change one aspect (counting reads, claiming lost writes).

#include <memory>
#include <optional>
#include <string>

#include "scheduler/store/store.h"

namespace taskboard::engine::testing {

class ForwardingStore : public store::Store {
 public:
  explicit ForwardingStore(store::Store& inner) : inner_(inner) {}
  absl::Status Write(const store::WriteBatch& batch) override { return inner_.Write(batch); }
  absl::StatusOr<std::optional<std::string>> Get(store::Column column,
                                                 absl::string_view key) override {
    return inner_.Get(column, key);
  }
  absl::Status Scan(store::Column column, absl::string_view start, absl::string_view end,
                    const Visitor& visit) override {
    return inner_.Scan(column, start, end, visit);
  }
  absl::Status ScanReverse(store::Column column, absl::string_view start, absl::string_view end,
                           const Visitor& visit) override {
    return inner_.ScanReverse(column, start, end, visit);
  }
  std::shared_ptr<store::Store> ReadSnapshot() override { return inner_.ReadSnapshot(); }

 protected:
  store::Store& inner_;
};

}  // namespace taskboard::engine::testing

#endif  // TASKBOARD_TESTS_UNIT_ENGINE_FORWARDING_STORE_H_
