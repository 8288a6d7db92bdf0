#ifndef TASKBOARD_TOOLS_CLI_SCHEDULER_CLIENT_H_
#define TASKBOARD_TOOLS_CLI_SCHEDULER_CLIENT_H_

// The CLI's connection to a scheduler: a channel to --scheduler (env
// TASKBOARD_SCHEDULER), plaintext or TLS (--tls-ca, mTLS with --tls-cert /
// --tls-key), the generated stub, and the per-call settings every client
// command shares (a deadline on unary calls, the bearer token of --token or
// TASKBOARD_TOKEN). docs/security.md.

#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "taskboard/v1/scheduler.grpc.pb.h"

namespace taskboard::cli {

inline constexpr char kDefaultSchedulerAddress[] = "127.0.0.1:7233";

// Adds `--scheduler ADDR` to a client command: the command line, else
// TASKBOARD_SCHEDULER, else kDefaultSchedulerAddress. Also adds --token,
// --tls-ca, --tls-cert and --tls-key, kept for the process's
// SchedulerClients (one command runs per process).
void AddSchedulerOption(CLI::App* command, std::string* address);

class SchedulerClient {
 public:
  // Unary calls that take longer than this fail with DEADLINE_EXCEEDED rather
  // than hang on an address that never answers.
  static constexpr absl::Duration kCallTimeout = absl::Seconds(30);

  // Connects lazily: nothing happens on the network until the first call.
  explicit SchedulerClient(std::string address);

  const std::string& address() const { return address_; }
  v1::Scheduler::Stub& stub() { return *stub_; }
  // The channel the stub uses, for calls by method name (`taskboard mcp`).
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  // The `authorization` metadata every call carries ("Bearer <token>"), empty
  // without a token.
  std::string authorization() const;

  // A context for one unary call (deadline kCallTimeout).
  std::unique_ptr<grpc::ClientContext> CallContext() const;
  // A context for a stream that lasts as long as the run (no deadline).
  std::unique_ptr<grpc::ClientContext> StreamContext() const;

 private:
  std::string address_;
  std::string token_;  // --token / TASKBOARD_TOKEN, sent as `authorization: Bearer <token>`
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Scheduler::Stub> stub_;
};

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_SCHEDULER_CLIENT_H_
