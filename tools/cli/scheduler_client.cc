#include "tools/cli/scheduler_client.h"

#include <chrono>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace taskboard::cli {

void AddSchedulerOption(CLI::App* command, std::string* address) {
  *address = kDefaultSchedulerAddress;
  command->add_option("--scheduler", *address, "Scheduler gRPC address, host:port")
      ->envname("TASKBOARD_SCHEDULER")
      ->capture_default_str();
}

SchedulerClient::SchedulerClient(std::string address) : address_(std::move(address)) {
  if (const char* token = std::getenv("TASKBOARD_TOKEN"); token != nullptr) token_ = token;
  stub_ = v1::Scheduler::NewStub(grpc::CreateChannel(address_, grpc::InsecureChannelCredentials()));
}

std::unique_ptr<grpc::ClientContext> SchedulerClient::StreamContext() const {
  auto context = std::make_unique<grpc::ClientContext>();
  if (!token_.empty()) context->AddMetadata("authorization", absl::StrCat("Bearer ", token_));
  return context;
}

std::unique_ptr<grpc::ClientContext> SchedulerClient::CallContext() const {
  std::unique_ptr<grpc::ClientContext> context = StreamContext();
  context->set_deadline(std::chrono::system_clock::now() +
                        absl::ToChronoMilliseconds(kCallTimeout));
  return context;
}

}  // namespace taskboard::cli
