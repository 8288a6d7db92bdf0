#include "tools/cli/scheduler_client.h"

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "common/tls/tls_credentials.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/support/channel_arguments.h"

namespace taskboard::cli {
namespace {

// The largest reply the CLI accepts (GetRun of a large run).
constexpr int kMaxReplyBytes = 256 << 20;

struct ConnectionFlags {
  std::string token;
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
  command->add_option("--scheduler", *address, "Scheduler gRPC address, host:port")
      ->envname("TASKBOARD_SCHEDULER")
      ->capture_default_str();
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

SchedulerClient::SchedulerClient(std::string address)
    : address_(std::move(address)), token_(Flags().token) {
  if (const char* token = std::getenv("TASKBOARD_TOKEN"); token != nullptr && token_.empty()) {
    token_ = token;
  }
  // A run's snapshot (GetRun, `show`) grows with its tasks: about 200 bytes
  // each, so a 100,000-task board is some 20 MB, over gRPC's 4 MiB default.
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxReplyBytes);
  channel_ = grpc::CreateCustomChannel(address_, Credentials(), args);
  stub_ = v1::Scheduler::NewStub(channel_);
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
