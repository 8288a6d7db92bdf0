#ifndef TASKBOARD_SCHEDULER_AUDIT_REFUSAL_LIMITER_H_
#define TASKBOARD_SCHEDULER_AUDIT_REFUSAL_LIMITER_H_

// The rate bound on recording refused calls (docs/audit.md#refused-calls):
// a token bucket per source (the caller's tenant when its token is known,
// else its address without the port) plus one for all sources together, so
// neither one client nor many addresses can fill the disk with refusals. A
// refusal over the bound is not recorded; the recorder counts it.
//
// Thread-safe. Time is passed in, so tests need no clock.

#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace taskboard::audit {

struct RefusalLimits {
  // Refusals recorded per second per source, and the burst a quiet source
  // may spend at once (--audit-refused-rate, --audit-refused-burst).
  double per_source_per_second = 1;
  double per_source_burst = 20;
  // All sources together: a flood from many addresses.
  double total_per_second = 20;
  double total_burst = 200;
  // Sources remembered; past it, full (idle) buckets are forgotten first.
  size_t max_sources = 10000;
};

class RefusalLimiter {
 public:
  explicit RefusalLimiter(RefusalLimits limits) : limits_(limits) {}

  // Whether a refusal from `source` at `now` may be recorded; takes a token
  // from its bucket and the total's when it may.
  bool Allow(absl::string_view source, absl::Time now);

 private:
  struct Bucket {
    double tokens = 0;
    absl::Time refilled;
  };
  // Refills `bucket` up to `now`.
  static void Refill(Bucket& bucket, absl::Time now, double rate, double burst);
  void ForgetIdle(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const RefusalLimits limits_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Bucket> sources_ ABSL_GUARDED_BY(mu_);
  Bucket total_ ABSL_GUARDED_BY(mu_);
  bool total_started_ ABSL_GUARDED_BY(mu_) = false;
};

// The source a refused call is bounded under: "tenant:<t>" for a known
// token, else "peer:<address without the port>".
std::string RefusalSource(absl::string_view tenant, bool token_known, absl::string_view peer);

}  // namespace taskboard::audit

#endif  // TASKBOARD_SCHEDULER_AUDIT_REFUSAL_LIMITER_H_
