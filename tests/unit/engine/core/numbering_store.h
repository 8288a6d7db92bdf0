#ifndef TASKBOARD_TESTS_UNIT_ENGINE_CORE_NUMBERING_STORE_H_
#define TASKBOARD_TESTS_UNIT_ENGINE_CORE_NUMBERING_STORE_H_

// A store that numbers each non-empty write, as a replicated leader's write
// hook does, for fake replication gates to answer WrittenIndex from.

#include <atomic>
#include <cstdint>

#include "tests/unit/engine/forwarding_store.h"

namespace taskboard::engine::testing {

class NumberingStore : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  absl::Status Write(const store::WriteBatch& batch) override {
    absl::Status written = inner_.Write(batch);
    if (!batch.empty()) ++last_index_;
    return written;
  }
  std::atomic<uint64_t> last_index_{0};
};

}  // namespace taskboard::engine::testing

#endif  // TASKBOARD_TESTS_UNIT_ENGINE_CORE_NUMBERING_STORE_H_
