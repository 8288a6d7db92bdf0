#ifndef TASKBOARD_COMMON_FAILOVER_FAILOVER_CHANNELS_H_
#define TASKBOARD_COMMON_FAILOVER_FAILOVER_CHANNELS_H_

// One gRPC channel per scheduler address and the one believed to be the
// leader, for the worker's stream and the CLI's calls: a replica that is not
// the leader answers UNAVAILABLE with the trailer `taskboard-leader:
// host:port` (kLeaderMetadataKey), and the next call goes there at once; an
// address that cannot be reached gives way to the next one after a backoff
// (leader_finder.h). Unary calls retry by themselves (Call) until
// FailoverOptions::give_up; streams report how they ended (Observe) and
// their caller starts the next one. Thread-safe.
// docs/operations.md#clients-and-replicated-schedulers.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/backoff.h"
#include "common/failover/leader_finder.h"
#include "common/failover/leader_trailer.h"
#include "grpcpp/grpcpp.h"

namespace taskboard::failover {

struct FailoverOptions {
  // Waits between addresses that cannot be reached (full jitter, capped).
  BackoffOptions backoff{.base = absl::Milliseconds(100), .cap = absl::Seconds(2)};
  // How long Call keeps retrying a unary call before it gives up (after
  // trying each address at least once): twice the default HA lease TTL (3 s)
  // plus 5 s, time for a new leader to be elected.
  absl::Duration give_up = absl::Seconds(11);
  // How long one attempt waits for a connection before the next address is
  // tried, so an address that drops packets cannot hold a client.
  absl::Duration connect_timeout = absl::Seconds(2);
};

// The leader a NotLeader answer named (its `taskboard-leader` trailer),
// empty when none. The call must have finished.
std::string LeaderHint(const grpc::ClientContext& context);

// Waits until `channel` is connected: OK, UNAVAILABLE when a connection
// attempt failed, DEADLINE_EXCEEDED when none succeeded by `deadline`.
absl::Status WaitForConnection(grpc::Channel& channel, absl::Time deadline);

class FailoverChannels {
 public:
  // `targets` from ParseSchedulerTargets (not empty). Every channel gets
  // `args`, with gRPC's reconnect backoff set to options.backoff (its own
  // grows to 2 minutes and would hold back our attempts).
  FailoverChannels(std::vector<std::string> targets,
                   std::shared_ptr<grpc::ChannelCredentials> credentials,
                   grpc::ChannelArguments args, FailoverOptions options = {});

  // The channel to the address believed to be the leader, and that address.
  std::shared_ptr<grpc::Channel> Current(std::string* address = nullptr);
  std::string address() const;
  // Every address known so far, ", "-separated (for error messages).
  std::string addresses() const;
  size_t size() const;
  // The channel to the `index`th address (< size()) and that address, for a
  // call meant for one replica whether it leads or not (`taskboard admin ha
  // status` asks each).
  std::shared_ptr<grpc::Channel> At(size_t index, std::string* address = nullptr);

  // Something was answered on the current channel.
  void Connected();
  // A call or stream on the channel of `address` ended with `status`
  // (`context` finished): returns the wait before the next attempt, zero
  // when the answer was OK or named the leader. Anything but UNAVAILABLE
  // counts as an answer (Connected).
  absl::Duration Observe(const std::string& address, const grpc::Status& status,
                         const grpc::ClientContext& context);
  // A connection to `address` could not be made (WaitForConnection's
  // `why`): the next address is current; returns the wait before it.
  absl::Duration Unreachable(const std::string& address, const absl::Status& why);

  // Runs a unary call: `attempt` makes it on the channel with a fresh
  // context from `make_context`, following NotLeader answers at once and
  // moving past unreachable addresses until FailoverOptions::give_up.
  // Returns the first answer that is not UNAVAILABLE, or UNAVAILABLE naming
  // every address tried and what each answered. Callers whose call must
  // not take effect twice give it an idempotency key first: an attempt cut
  // off mid-call may have been applied.
  grpc::Status Call(
      absl::FunctionRef<std::unique_ptr<grpc::ClientContext>()> make_context,
      absl::FunctionRef<grpc::Status(const std::shared_ptr<grpc::Channel>&, grpc::ClientContext&)>
          attempt);

  // Attempts that failed over, and the waits they cost, over the channels'
  // life (for tests and logs).
  int failed_attempts() const;
  absl::Duration waited() const;

 private:
  std::shared_ptr<grpc::Channel> ChannelFor(size_t index) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::shared_ptr<grpc::ChannelCredentials> credentials_;
  const grpc::ChannelArguments args_;
  const FailoverOptions options_;
  mutable absl::Mutex mu_;
  LeaderFinder finder_ ABSL_GUARDED_BY(mu_);
  // Parallel to finder_.addresses(); made on first use.
  std::vector<std::shared_ptr<grpc::Channel>> channels_ ABSL_GUARDED_BY(mu_);
  absl::BitGen random_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::failover

#endif  // TASKBOARD_COMMON_FAILOVER_FAILOVER_CHANNELS_H_
