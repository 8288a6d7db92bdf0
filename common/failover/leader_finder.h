#ifndef TASKBOARD_COMMON_FAILOVER_LEADER_FINDER_H_
#define TASKBOARD_COMMON_FAILOVER_LEADER_FINDER_H_

// Which scheduler replica a client talks to next, and how long it waits
// first: the part of failover that knows no gRPC (the channels are
// failover_channels.h). docs/operations.md#clients-and-replicated-schedulers.
//
//   current --answers---------------------------> Connected(): backoff reset
//      |----"not the leader; it is at X"--------> X (added if new), no wait
//      |----cannot connect / no leader named----> the next address, after a
//                                                 capped exponential backoff
//
// A replica that is not the leader answers UNAVAILABLE naming the leader;
// following that hint costs no wait, since the leader is known to be up.
// Hints that keep bouncing (replicas disagreeing during an election) count
// as failures once every address was redirected through without one
// answering, so two stale replicas cannot make a client spin. A hint is a
// server's word, so it is bounded too: at most kMaxLearnedAddresses
// addresses join the configured ones, and a hint longer than
// kMaxLeaderHintBytes or past that count is not followed (it counts as an
// address that could not be reached), so replicas naming ever new leaders
// cannot grow the list, or keep a call from giving up.
//
// Not thread-safe; the channels hold it under their lock.

#include <cstddef>
#include <string>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/backoff.h"

namespace taskboard::failover {

class LeaderFinder {
 public:
  static constexpr size_t kMaxLearnedAddresses = 8;
  // A DNS name (253) plus ":port", with room for IPv6 brackets.
  static constexpr size_t kMaxLeaderHintBytes = 270;

  // `addresses` is not empty (scheduler_targets.h); the first is tried first.
  LeaderFinder(std::vector<std::string> addresses, BackoffOptions backoff);

  const std::vector<std::string>& addresses() const { return addresses_; }
  size_t current() const { return current_; }
  const std::string& current_address() const { return addresses_[current_]; }

  // The current address answered (a reply, or an error other than
  // UNAVAILABLE): it is the leader until it says otherwise.
  void Connected();

  // The current address is not the leader and named `leader` (host:port);
  // `answer` is what it said, for Tried(). Makes `leader` current, adding it
  // to the list when it is new, and returns the wait before trying it:
  // zero, unless redirects went round every address without one answering.
  // A hint that is too long, or new when kMaxLearnedAddresses were already
  // learned, is handled as Unreachable.
  absl::Duration NotLeader(absl::string_view leader, absl::string_view answer,
                           absl::BitGenRef random);

  // The current address could not be reached, or answered UNAVAILABLE
  // without naming a leader (no leader elected yet). Moves to the next
  // address and returns the backoff to wait first.
  absl::Duration Unreachable(absl::string_view answer, absl::BitGenRef random);

  // Attempts that ended in NotLeader or Unreachable, and the waits handed
  // out for them, over the finder's life (for tests and logs).
  int failed_attempts() const { return failed_attempts_; }
  absl::Duration waited() const { return waited_; }

  // Every address that failed since the last Connected, with its last answer:
  // "a:7233 (cannot connect), b:7233 (not the leader; ...)".
  std::string Tried() const;

 private:
  struct Answer {
    size_t index;
    std::string text;
  };
  void Record(absl::string_view answer);

  std::vector<std::string> addresses_;
  const size_t configured_;  // addresses_ given to the constructor; later ones are learned
  size_t current_ = 0;
  Backoff backoff_;
  // Redirects since the last answer or failure to connect.
  size_t redirects_ = 0;
  int failed_attempts_ = 0;
  absl::Duration waited_;
  std::vector<Answer> answers_;
};

}  // namespace taskboard::failover

#endif  // TASKBOARD_COMMON_FAILOVER_LEADER_FINDER_H_
