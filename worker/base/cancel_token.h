#ifndef TASKBOARD_WORKER_BASE_CANCEL_TOKEN_H_
#define TASKBOARD_WORKER_BASE_CANCEL_TOKEN_H_

// The stop signal of one agent run. The session cancels it (scheduler Cancel,
// revoked lease, drain grace expired); the agent notices either by checking
// cancelled() or, to wake from a blocking wait at once, by polling fd(), which
// becomes readable when the token is cancelled.
//
// Thread-safe: Cancel may race with readers on any thread.

#include <atomic>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace taskboard::worker {

class CancelToken {
 public:
  CancelToken();
  ~CancelToken();
  CancelToken(const CancelToken&) = delete;
  CancelToken& operator=(const CancelToken&) = delete;

  // Cancels with `reason` (shown to users as "cancelled: <reason>"). Only the
  // first call counts; returns whether this call was it.
  bool Cancel(std::string reason);

  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  // Empty until cancelled.
  std::string reason() const;

  // An eventfd that is readable once cancelled, or -1 if the process ran out
  // of descriptors; callers that poll it must then also check cancelled()
  // every few milliseconds. Made by the first call: most agents never wait
  // on it, and a descriptor made and closed per task was two system calls
  // of every task's cost.
  int fd() const;

 private:
  static constexpr int kNotMade = -2;

  std::atomic<bool> cancelled_{false};
  mutable absl::Mutex mu_;
  std::string reason_ ABSL_GUARDED_BY(mu_);
  // kNotMade until fd() is first called; written under mu_, so Cancel and
  // the first fd() agree on whether the descriptor still needs its signal.
  mutable std::atomic<int> fd_{kNotMade};
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_BASE_CANCEL_TOKEN_H_
