#include "tools/cli/scheduler_client.h"

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "common/duration_text.h"
#include "common/failover/scheduler_targets.h"
#include "common/tls/tls_credentials.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/support/channel_arguments.h"

namespace taskboard::cli {
namespace {

// The largest reply the CLI accepts (GetRun of a large run).
constexpr int kMaxReplyBytes = 256 << 20;

struct ConnectionFlags {
  std::string token;
  // How long a unary call keeps looking for the leader.
  absl::Duration failover_timeout = failover::FailoverOptions().give_up;
  tls::ClientTlsFlags tls;
};

ConnectionFlags& Flags() {
  static ConnectionFlags* flags = new ConnectionFlags();
  return *flags;
}

// The channel's credentials: plaintext without --tls-ca. A TLS setting that
// cannot be used is reported and the channel stays TLS with the system's
// roots, so calls fail (UNAVAILABLE) rather than go out in plaintext.
std::shared_ptr<grpc::ChannelCredentials> Credentials() {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      tls::ChannelCredentials(Flags().tls);
  if (!credentials.ok()) {
    std::cerr << "taskboard: " << credentials.status().message() << "\n";
    return grpc::SslCredentials(grpc::SslCredentialsOptions());
  }
  return *credentials != nullptr ? *credentials : grpc::InsecureChannelCredentials();
}

}  // namespace

void AddSchedulerOption(CLI::App* command, std::string* address) {
  *address = kDefaultSchedulerAddress;
  Flags() = ConnectionFlags();
  command
      ->add_option("--scheduler", *address,
                   "Scheduler gRPC address, host:port; for replicated schedulers several, "
                   "host:port,host:port, or dns:///name:port")
      ->envname("TASKBOARD_SCHEDULER")
      ->capture_default_str()
      ->check([](const std::string& value) {
        absl::StatusOr<std::vector<std::string>> targets = failover::ParseSchedulerTargets(value);
        return targets.ok() ? std::string() : std::string(targets.status().message());
      });
  command
      ->add_option_function<std::string>(
          "--failover-timeout",
          [](const std::string& text) {
            absl::StatusOr<absl::Duration> timeout = ParseDurationText(text);
            if (!timeout.ok())
              throw CLI::ValidationError("--failover-timeout",
                                         std::string(timeout.status().message()));
            Flags().failover_timeout = *timeout;
          },
          "How long a call keeps looking for the scheduler leader (every address is tried at "
          "least once), e.g. 11s (default), 0")
      ->envname("TASKBOARD_FAILOVER_TIMEOUT");
  command->add_option("--token", Flags().token, "Bearer token for a scheduler with --auth-tokens")
      ->envname("TASKBOARD_TOKEN");
  CLI::Option* ca = command
                        ->add_option("--tls-ca", Flags().tls.ca,
                                     "Connect over TLS, trusting this CA for the scheduler (PEM)")
                        ->envname("TASKBOARD_TLS_CA")
                        ->check(CLI::ExistingFile);
  CLI::Option* key =
      command->add_option("--tls-key", Flags().tls.key, "The private key of --tls-cert (PEM)")
          ->envname("TASKBOARD_TLS_KEY")
          ->check(CLI::ExistingFile);
  command->add_option("--tls-cert", Flags().tls.cert, "Client certificate for mTLS (PEM)")
      ->envname("TASKBOARD_TLS_CERT")
      ->check(CLI::ExistingFile)
      ->needs(ca)
      ->needs(key);
}

SchedulerClient::SchedulerClient(std::string address) : token_(Flags().token) {
  if (const char* token = std::getenv("TASKBOARD_TOKEN"); token != nullptr && token_.empty()) {
    token_ = token;
  }
  // A run's snapshot (GetRun, `show`) grows with its tasks: about 200 bytes
  // each, so a 100,000-task board is some 20 MB, over gRPC's 4 MiB default.
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxReplyBytes);
  // --scheduler was checked; a value from elsewhere that does not parse is
  // one target, which gRPC reports on the first call.
  absl::StatusOr<std::vector<std::string>> targets = failover::ParseSchedulerTargets(address);
  failover::FailoverOptions options;
  options.give_up = Flags().failover_timeout;
  channels_ = std::make_unique<failover::FailoverChannels>(
      targets.ok() ? *std::move(targets) : std::vector<std::string>{std::move(address)},
      Credentials(), args, options);
}

std::string SchedulerClient::authorization() const {
  return token_.empty() ? std::string() : absl::StrCat("Bearer ", token_);
}

std::unique_ptr<grpc::ClientContext> SchedulerClient::StreamContext() const {
  auto context = std::make_unique<grpc::ClientContext>();
  if (!token_.empty()) context->AddMetadata("authorization", authorization());
  return context;
}

std::unique_ptr<grpc::ClientContext> SchedulerClient::CallContext() const {
  std::unique_ptr<grpc::ClientContext> context = StreamContext();
  context->set_deadline(std::chrono::system_clock::now() +
                        absl::ToChronoMilliseconds(kCallTimeout));
  return context;
}

}  // namespace taskboard::cli
