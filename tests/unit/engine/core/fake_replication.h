#ifndef TASKBOARD_TESTS_UNIT_ENGINE_CORE_FAKE_REPLICATION_H_
#define TASKBOARD_TESTS_UNIT_ENGINE_CORE_FAKE_REPLICATION_H_

// A replicated leader's side of the engine, faked for tests: a store that
// numbers each non-empty write as the leader's write hook does, and a
// ReplicationGate that releases what the test says
// (docs/high-availability.md#acknowledged-writes).

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/engine/core/replication_gate.h"
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

// Releases up to what the test says; counts how often each index was asked.
class FakeGate : public ReplicationGate {
 public:
  explicit FakeGate(const NumberingStore* store) : store_(store) {}

  uint64_t WrittenIndex() const override { return store_->last_index_.load(); }
  bool AwaitReleasable(uint64_t index, absl::Time deadline) override {
    absl::MutexLock lock(&mu_);
    ++asked_[index];
    auto released = [this, index]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return released_ >= index; };
    return mu_.AwaitWithDeadline(absl::Condition(&released), deadline);
  }

  void ReleaseUpTo(uint64_t index) {
    absl::MutexLock lock(&mu_);
    released_ = std::max(released_, index);
  }
  // Waits until the release thread asked for `index` `times` times (so it
  // saw it and was refused at least once when times >= 2).
  void WaitAsked(uint64_t index, int times) {
    absl::MutexLock lock(&mu_);
    auto asked = [this, index, times]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
      auto found = asked_.find(index);
      return found != asked_.end() && found->second >= times;
    };
    mu_.Await(absl::Condition(&asked));
  }

 private:
  const NumberingStore* const store_;
  absl::Mutex mu_;
  uint64_t released_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<uint64_t, int> asked_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::engine::testing

#endif  // TASKBOARD_TESTS_UNIT_ENGINE_CORE_FAKE_REPLICATION_H_
