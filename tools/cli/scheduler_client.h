#ifndef TASKBOARD_TOOLS_CLI_SCHEDULER_CLIENT_H_
#define TASKBOARD_TOOLS_CLI_SCHEDULER_CLIENT_H_

// The CLI's connection to the scheduler: channels to --scheduler (env
// TASKBOARD_SCHEDULER; one address, several replicas `a:7233,b:7233`, or
// `dns:///name:7233`), plaintext or TLS (--tls-ca, mTLS with --tls-cert /
// --tls-key), and the per-call settings every client command shares (a
// deadline on unary calls, the bearer token of --token or TASKBOARD_TOKEN).
// Unary calls go to the leader and follow it when it moves
// (common/failover/failover_channels.h, --failover-timeout).
// docs/security.md, docs/operations.md#clients-and-replicated-schedulers.

#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/time/time.h"
#include "common/failover/failover_channels.h"
#include "grpcpp/grpcpp.h"
#include "taskboard/v1/scheduler.grpc.pb.h"

namespace taskboard::cli {

inline constexpr char kDefaultSchedulerAddress[] = "127.0.0.1:7233";

template <typename Request, typename Response>
using SchedulerMethod = grpc::Status (v1::Scheduler::Stub::*)(grpc::ClientContext*, const Request&,
                                                              Response*);

// Adds `--scheduler ADDR[,ADDR...]` to a client command: the command line,
// else TASKBOARD_SCHEDULER, else kDefaultSchedulerAddress. Also adds
// --failover-timeout, --token, --tls-ca, --tls-cert and --tls-key, kept for
// the process's SchedulerClients (one command runs per process).
void AddSchedulerOption(CLI::App* command, std::string* address);

class SchedulerClient {
 public:
  // Unary calls that take longer than this fail with DEADLINE_EXCEEDED rather
  // than hang on an address that never answers.
  static constexpr absl::Duration kCallTimeout = absl::Seconds(30);

  // Connects lazily: nothing happens on the network until the first call.
  // `address` is --scheduler's value.
  explicit SchedulerClient(std::string address);

  // The scheduler addresses known, ", "-separated, for messages.
  std::string address() const { return channels_->addresses(); }
  failover::FailoverChannels& channels() { return *channels_; }
  // The channel to the leader as far as known, for calls by method name
  // (`taskboard mcp`, `admin backup`); they do not fail over.
  std::shared_ptr<grpc::Channel> channel() { return channels_->Current(); }
  // The `authorization` metadata every call carries ("Bearer <token>"), empty
  // without a token.
  std::string authorization() const;

  // One unary call with the deadline kCallTimeout, on the leader: retried on
  // another replica when the one asked does not lead or cannot be reached,
  // until --failover-timeout (FailoverChannels::Call).
  template <typename Request, typename Response>
  grpc::Status Call(SchedulerMethod<Request, Response> method, const Request& request,
                    Response* response) {
    return channels_->Call(
        [this] { return CallContext(); },
        [&](const std::shared_ptr<grpc::Channel>& channel, grpc::ClientContext& context) {
          v1::Scheduler::Stub stub(channel);
          return (stub.*method)(&context, request, response);
        });
  }

  // A context for one unary call (deadline kCallTimeout).
  std::unique_ptr<grpc::ClientContext> CallContext() const;
  // A context for a stream that lasts as long as the run (no deadline).
  std::unique_ptr<grpc::ClientContext> StreamContext() const;

 private:
  std::string token_;  // --token / TASKBOARD_TOKEN, sent as `authorization: Bearer <token>`
  std::unique_ptr<failover::FailoverChannels> channels_;
};

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_SCHEDULER_CLIENT_H_
