#include "common/failover/failover_channels.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "grpcpp/create_channel.h"

namespace taskboard::failover {
namespace {

grpc::ChannelArguments WithReconnectBackoff(grpc::ChannelArguments args,
                                            const BackoffOptions& backoff) {
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS,
              static_cast<int>(absl::ToInt64Milliseconds(backoff.base)));
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS,
              static_cast<int>(absl::ToInt64Milliseconds(backoff.cap)));
  return args;
}

}  // namespace

std::string LeaderHint(const grpc::ClientContext& context) {
  const auto& trailers = context.GetServerTrailingMetadata();
  auto found = trailers.find(kLeaderMetadataKey);
  if (found == trailers.end()) return "";
  return std::string(found->second.data(), found->second.size());
}

absl::Status WaitForConnection(grpc::Channel& channel, absl::Time deadline) {
  grpc_connectivity_state state = channel.GetState(/*try_to_connect=*/true);
  while (state != GRPC_CHANNEL_READY) {
    // TRANSIENT_FAILURE is sticky: the channel stays in it, retrying in the
    // background on gRPC's reconnect backoff, until a connection succeeds.
    // Waiting on it would wait for the deadline; the next address is tried
    // instead, and this one is ready by the time the round comes back.
    if (state == GRPC_CHANNEL_TRANSIENT_FAILURE) return absl::UnavailableError("cannot connect");
    if (state == GRPC_CHANNEL_SHUTDOWN) return absl::UnavailableError("channel shut down");
    if (!channel.WaitForStateChange(state, absl::ToChronoTime(deadline))) {
      return absl::DeadlineExceededError("no connection within the connect timeout");
    }
    state = channel.GetState(/*try_to_connect=*/true);
  }
  return absl::OkStatus();
}

FailoverChannels::FailoverChannels(std::vector<std::string> targets,
                                   std::shared_ptr<grpc::ChannelCredentials> credentials,
                                   grpc::ChannelArguments args, FailoverOptions options)
    : credentials_(credentials != nullptr ? std::move(credentials)
                                          : grpc::InsecureChannelCredentials()),
      args_(WithReconnectBackoff(std::move(args), options.backoff)),
      options_(options),
      finder_(std::move(targets), options.backoff) {}

std::shared_ptr<grpc::Channel> FailoverChannels::ChannelFor(size_t index) {
  if (channels_.size() < finder_.addresses().size()) channels_.resize(finder_.addresses().size());
  if (channels_[index] == nullptr) {
    channels_[index] = grpc::CreateCustomChannel(finder_.addresses()[index], credentials_, args_);
  }
  return channels_[index];
}

std::shared_ptr<grpc::Channel> FailoverChannels::Current(std::string* address) {
  absl::MutexLock lock(&mu_);
  if (address != nullptr) *address = finder_.current_address();
  return ChannelFor(finder_.current());
}

std::shared_ptr<grpc::Channel> FailoverChannels::At(size_t index, std::string* address) {
  absl::MutexLock lock(&mu_);
  if (address != nullptr) *address = finder_.addresses().at(index);
  return ChannelFor(index);
}

std::string FailoverChannels::address() const {
  absl::MutexLock lock(&mu_);
  return finder_.current_address();
}

std::string FailoverChannels::addresses() const {
  absl::MutexLock lock(&mu_);
  return absl::StrJoin(finder_.addresses(), ", ");
}

size_t FailoverChannels::size() const {
  absl::MutexLock lock(&mu_);
  return finder_.addresses().size();
}

void FailoverChannels::Connected() {
  absl::MutexLock lock(&mu_);
  finder_.Connected();
}

absl::Duration FailoverChannels::Observe(const std::string& address, const grpc::Status& status,
                                         const grpc::ClientContext& context) {
  if (status.error_code() != grpc::StatusCode::UNAVAILABLE) {
    Connected();
    return absl::ZeroDuration();
  }
  const std::string leader = LeaderHint(context);
  absl::MutexLock lock(&mu_);
  // Another call moved on already: its choice stands.
  if (finder_.current_address() != address) return absl::ZeroDuration();
  if (!leader.empty()) return finder_.NotLeader(leader, status.error_message(), random_);
  return finder_.Unreachable(status.error_message(), random_);
}

absl::Duration FailoverChannels::Unreachable(const std::string& address, const absl::Status& why) {
  absl::MutexLock lock(&mu_);
  if (finder_.current_address() != address) return absl::ZeroDuration();
  return finder_.Unreachable(why.message(), random_);
}

grpc::Status FailoverChannels::Call(
    absl::FunctionRef<std::unique_ptr<grpc::ClientContext>()> make_context,
    absl::FunctionRef<grpc::Status(const std::shared_ptr<grpc::Channel>&, grpc::ClientContext&)>
        attempt) {
  const absl::Time give_up_at = absl::Now() + options_.give_up;
  size_t attempts = 0;
  while (true) {
    std::string address;
    std::shared_ptr<grpc::Channel> channel = Current(&address);
    ++attempts;
    absl::Duration delay;
    if (absl::Status connected =
            WaitForConnection(*channel, absl::Now() + options_.connect_timeout);
        !connected.ok()) {
      delay = Unreachable(address, connected);
    } else {
      std::unique_ptr<grpc::ClientContext> context = make_context();
      grpc::Status status = attempt(channel, *context);
      if (status.error_code() != grpc::StatusCode::UNAVAILABLE) {
        Connected();
        return status;
      }
      delay = Observe(address, status, *context);
    }
    // Every address gets its chance, however short the give-up time.
    if (attempts >= size() && absl::Now() + delay > give_up_at) {
      absl::MutexLock lock(&mu_);
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          absl::StrCat("no scheduler answered as the leader within ",
                                       absl::FormatDuration(options_.give_up),
                                       " (--failover-timeout); tried ", finder_.Tried()));
    }
    absl::SleepFor(delay);
  }
}

int FailoverChannels::failed_attempts() const {
  absl::MutexLock lock(&mu_);
  return finder_.failed_attempts();
}

absl::Duration FailoverChannels::waited() const {
  absl::MutexLock lock(&mu_);
  return finder_.waited();
}

}  // namespace taskboard::failover
