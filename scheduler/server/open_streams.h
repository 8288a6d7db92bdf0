#ifndef TASKBOARD_SCHEDULER_SERVER_OPEN_STREAMS_H_
#define TASKBOARD_SCHEDULER_SERVER_OPEN_STREAMS_H_

// The long-lived streams (worker Connect, WatchRun) with the token each was
// admitted with, so that a token taken out of the tokens file (SIGHUP) ends
// its streams instead of leaving them open for as long as they last.
// Admission is per call; without this a revoked worker token would keep
// receiving every tenant's tasks until its stream happened to break.
//
// Thread-safe. Closers run outside the lock: closing may end the stream at
// once, and its end removes it from here.

#include <cstdint>
#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/auth/authenticator.h"

namespace taskboard::server {

class OpenStreams {
 public:
  // Ends the stream with UNAVAILABLE and `reason` (the client reconnects and
  // is refused at admission). It may run just after the stream's Remove,
  // so it must own what it touches (a shared_ptr to a detachable channel).
  using Closer = std::function<void(const std::string& reason)>;

  // Returns the stream's id for Remove.
  uint64_t Add(std::string authorization, std::string method, Closer close);
  void Remove(uint64_t id);

  // Closes and forgets every stream whose token `authenticator` no longer
  // admits for its method; how many.
  int CloseRevoked(const auth::Authenticator& authenticator);

  size_t size() const;

 private:
  struct Entry {
    std::string authorization;
    std::string method;
    Closer close;
  };

  mutable absl::Mutex mu_;
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  absl::flat_hash_map<uint64_t, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_OPEN_STREAMS_H_
