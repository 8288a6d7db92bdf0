#ifndef TASKBOARD_SCHEDULER_WEB_STREAM_SLOTS_H_
#define TASKBOARD_SCHEDULER_WEB_STREAM_SLOTS_H_

// How many event streams the HTTP API holds open: at most `max_total`, and
// at most `max_per_tenant` for one tenant, so that one tenant following its
// own runs cannot take every stream from the others. Thread-safe.

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace taskboard::web {

class StreamSlots {
 public:
  // A held slot; given back when destroyed.
  class Slot {
   public:
    ~Slot() { slots_->Release(tenant_); }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;

   private:
    friend class StreamSlots;
    Slot(StreamSlots* slots, std::string tenant) : slots_(slots), tenant_(std::move(tenant)) {}
    StreamSlots* const slots_;
    const std::string tenant_;
  };

  StreamSlots(int max_total, int max_per_tenant)
      : max_total_(max_total), max_per_tenant_(max_per_tenant) {}

  // A slot for `tenant` ("" without authentication); RESOURCE_EXHAUSTED
  // naming the flag at either bound. The slots must outlive the Slot.
  absl::StatusOr<std::unique_ptr<Slot>> Acquire(const std::string& tenant);

  int open() const;
  int open_for(const std::string& tenant) const;

 private:
  void Release(const std::string& tenant);

  const int max_total_;
  const int max_per_tenant_;
  mutable absl::Mutex mu_;
  int total_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, int> per_tenant_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_STREAM_SLOTS_H_
