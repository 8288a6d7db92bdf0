#include "scheduler/ha/etcd_client.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/support/channel_arguments.h"

namespace taskboard::ha {
namespace {

using etcdserverpb::LeaseKeepAliveRequest;
using etcdserverpb::LeaseKeepAliveResponse;
using etcdserverpb::WatchRequest;
using etcdserverpb::WatchResponse;

absl::Status FromGrpc(const grpc::Status& status) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

// Worth another member: this one is down, partitioned, has no etcd leader,
// or did not answer in its share of the time.
bool TryNextMember(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE ||
         status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
}

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& endpoint,
                                           const std::shared_ptr<grpc::ChannelCredentials>& creds) {
  grpc::ChannelArguments args;
  // A restarted member is used again within about a second: gRPC's default
  // reconnect backoff starts at 1 s and grows to 2 minutes.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // Several channels to one address (a client per candidate in one test
  // process) must not share one connection: each stands for a process.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(
      endpoint, creds != nullptr ? creds : grpc::InsecureChannelCredentials(), args);
}

void SetDeadline(grpc::ClientContext& context, absl::Time deadline) {
  context.set_deadline(absl::ToChronoTime(deadline));
}

}  // namespace

absl::StatusOr<int64_t> EtcdKeepAliveStream::KeepAlive(int64_t id, absl::Time deadline) {
  if (broken_) {
    return absl::FailedPreconditionError(
        absl::StrCat("etcd Lease.LeaseKeepAlive on ", endpoint_, ": the stream is unusable"));
  }
  broken_ = true;  // until the answer is in
  LeaseKeepAliveRequest request;
  request.set_id(id);
  if (!call_->Send(std::move(request))) {
    return absl::UnavailableError(
        absl::StrCat("etcd Lease.LeaseKeepAlive on ", endpoint_, ": the stream ended"));
  }
  absl::StatusOr<LeaseKeepAliveResponse> response = call_->Next(deadline);
  if (!response.ok()) {
    return absl::Status(response.status().code(),
                        absl::StrCat("etcd Lease.LeaseKeepAlive on ", endpoint_, ": ",
                                     response.status().message()));
  }
  broken_ = false;
  return response->ttl();
}

absl::StatusOr<WatchResponse> EtcdWatchStream::Next(absl::Time deadline) {
  while (true) {
    absl::StatusOr<WatchResponse> response = call_->Next(deadline);
    if (!response.ok()) {
      return absl::Status(
          response.status().code(),
          absl::StrCat("etcd Watch.Watch on ", endpoint_, ": ", response.status().message()));
    }
    if (response->canceled()) {
      if (response->compact_revision() > 0) {
        return absl::OutOfRangeError(
            absl::StrCat("etcd Watch.Watch on ", endpoint_, ": revision compacted at ",
                         response->compact_revision(), " (", response->cancel_reason(), ")"));
      }
      return absl::UnavailableError(absl::StrCat("etcd Watch.Watch on ", endpoint_,
                                                 ": watch cancelled: ", response->cancel_reason()));
    }
    if (response->events_size() > 0) return response;
  }
}

absl::StatusOr<std::unique_ptr<EtcdClient>> EtcdClient::Create(EtcdClientOptions options) {
  if (options.endpoints.empty()) {
    return absl::InvalidArgumentError("etcd client: no endpoint given (want host:port,...)");
  }
  for (const std::string& endpoint : options.endpoints) {
    if (endpoint.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("etcd client: an empty endpoint in [",
                                                     absl::StrJoin(options.endpoints, ","), "]"));
    }
  }
  return std::unique_ptr<EtcdClient>(new EtcdClient(std::move(options)));
}

EtcdClient::EtcdClient(EtcdClientOptions options) : options_(std::move(options)) {
  for (const std::string& endpoint : options_.endpoints) {
    std::shared_ptr<grpc::Channel> channel = MakeChannel(endpoint, options_.credentials);
    members_.push_back(
        Member{endpoint, etcdserverpb::KV::NewStub(channel), etcdserverpb::Lease::NewStub(channel),
               etcdserverpb::Watch::NewStub(channel), etcdserverpb::Maintenance::NewStub(channel)});
  }
}

size_t EtcdClient::current() const {
  absl::MutexLock lock(&mu_);
  return current_;
}

void EtcdClient::SetCurrent(size_t index) {
  absl::MutexLock lock(&mu_);
  current_ = index;
}

std::string EtcdClient::current_endpoint() const { return members_[current()].endpoint; }

absl::Status EtcdClient::CallWithFailover(absl::string_view method, absl::Time deadline,
                                          const Attempt& attempt) {
  std::vector<std::string> failures;
  const size_t first = current();
  // Each member once, then around again while time is left (a member that
  // refused a moment ago may be back, or may have elected a leader).
  for (size_t tries = 0;; ++tries) {
    const absl::Time now = absl::Now();
    if (now >= deadline) break;
    const size_t index = (first + tries) % members_.size();
    Member& member = members_[index];
    grpc::ClientContext context;
    SetDeadline(context, std::min(deadline, now + options_.attempt_timeout));
    const grpc::Status status = attempt(member, context);
    if (status.ok()) {
      if (index != first) SetCurrent(index);
      return absl::OkStatus();
    }
    std::string failure =
        absl::StrCat(member.endpoint, ": ", absl::StatusCodeToString(FromGrpc(status).code()), ": ",
                     status.error_message());
    if (!TryNextMember(status)) {
      return absl::Status(FromGrpc(status).code(), absl::StrCat("etcd ", method, ": ", failure));
    }
    if (failures.size() < members_.size()) failures.push_back(std::move(failure));
    // Everything refused at once (nothing listening): do not spin until the
    // deadline; the next round starts after a short pause.
    if ((tries + 1) % members_.size() == 0 && absl::Now() - now < absl::Milliseconds(50)) {
      absl::SleepFor(std::min(absl::Milliseconds(50), deadline - absl::Now()));
    }
    SetCurrent((index + 1) % members_.size());
  }
  const std::string tried =
      failures.empty() ? "no attempt" : absl::StrCat("tried ", absl::StrJoin(failures, "; "));
  return absl::DeadlineExceededError(
      absl::StrCat("etcd ", method, ": no endpoint answered before the deadline (", tried, ")"));
}

absl::StatusOr<etcdserverpb::RangeResponse> EtcdClient::Range(
    const etcdserverpb::RangeRequest& request, absl::Time deadline) {
  etcdserverpb::RangeResponse response;
  absl::Status status =
      CallWithFailover("KV.Range", deadline, [&](Member& member, grpc::ClientContext& context) {
        return member.kv->Range(&context, request, &response);
      });
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<etcdserverpb::PutResponse> EtcdClient::Put(const etcdserverpb::PutRequest& request,
                                                          absl::Time deadline) {
  etcdserverpb::PutResponse response;
  absl::Status status =
      CallWithFailover("KV.Put", deadline, [&](Member& member, grpc::ClientContext& context) {
        return member.kv->Put(&context, request, &response);
      });
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<etcdserverpb::DeleteRangeResponse> EtcdClient::DeleteRange(
    const etcdserverpb::DeleteRangeRequest& request, absl::Time deadline) {
  etcdserverpb::DeleteRangeResponse response;
  absl::Status status = CallWithFailover(
      "KV.DeleteRange", deadline, [&](Member& member, grpc::ClientContext& context) {
        return member.kv->DeleteRange(&context, request, &response);
      });
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<etcdserverpb::TxnResponse> EtcdClient::Txn(const etcdserverpb::TxnRequest& request,
                                                          absl::Time deadline) {
  etcdserverpb::TxnResponse response;
  absl::Status status =
      CallWithFailover("KV.Txn", deadline, [&](Member& member, grpc::ClientContext& context) {
        return member.kv->Txn(&context, request, &response);
      });
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<etcdserverpb::LeaseGrantResponse> EtcdClient::LeaseGrant(
    const etcdserverpb::LeaseGrantRequest& request, absl::Time deadline) {
  etcdserverpb::LeaseGrantResponse response;
  absl::Status status = CallWithFailover(
      "Lease.LeaseGrant", deadline, [&](Member& member, grpc::ClientContext& context) {
        return member.lease->LeaseGrant(&context, request, &response);
      });
  if (!status.ok()) return status;
  if (!response.error().empty()) {
    return absl::InternalError(absl::StrCat("etcd Lease.LeaseGrant: ", response.error()));
  }
  return response;
}

absl::StatusOr<etcdserverpb::LeaseRevokeResponse> EtcdClient::LeaseRevoke(
    const etcdserverpb::LeaseRevokeRequest& request, absl::Time deadline) {
  etcdserverpb::LeaseRevokeResponse response;
  absl::Status status = CallWithFailover(
      "Lease.LeaseRevoke", deadline, [&](Member& member, grpc::ClientContext& context) {
        return member.lease->LeaseRevoke(&context, request, &response);
      });
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<etcdserverpb::StatusResponse> EtcdClient::Status(size_t index, absl::Time deadline) {
  if (index >= members_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("etcd Maintenance.Status: no endpoint ", index, " (", members_.size(), ")"));
  }
  Member& member = members_[index];
  grpc::ClientContext context;
  SetDeadline(context, deadline);
  etcdserverpb::StatusResponse response;
  const grpc::Status status =
      member.maintenance->Status(&context, etcdserverpb::StatusRequest(), &response);
  if (!status.ok()) {
    return absl::Status(
        FromGrpc(status).code(),
        absl::StrCat("etcd Maintenance.Status on ", member.endpoint, ": ", status.error_message()));
  }
  return response;
}

std::unique_ptr<EtcdKeepAliveStream> EtcdClient::LeaseKeepAlive() {
  Member& member = members_[current()];
  auto call = std::make_unique<EtcdKeepAliveStream::Call>(
      [&member](grpc::ClientContext* context,
                grpc::ClientBidiReactor<LeaseKeepAliveRequest, LeaseKeepAliveResponse>* reactor) {
        member.lease->async()->LeaseKeepAlive(context, reactor);
      });
  return std::unique_ptr<EtcdKeepAliveStream>(
      new EtcdKeepAliveStream(member.endpoint, std::move(call)));
}

void EtcdClient::SkipEndpoint(const std::string& endpoint) {
  absl::MutexLock lock(&mu_);
  if (members_[current_].endpoint == endpoint) current_ = (current_ + 1) % members_.size();
}

absl::StatusOr<std::unique_ptr<EtcdWatchStream>> EtcdClient::Watch(
    const etcdserverpb::WatchCreateRequest& request, absl::Time deadline) {
  std::vector<std::string> failures;
  const size_t first = current();
  for (size_t tries = 0; absl::Now() < deadline; ++tries) {
    const size_t index = (first + tries) % members_.size();
    Member& member = members_[index];
    const absl::Time started = absl::Now();
    auto call = std::make_unique<EtcdWatchStream::Call>(
        [&member](grpc::ClientContext* context,
                  grpc::ClientBidiReactor<WatchRequest, WatchResponse>* reactor) {
          member.watch->async()->Watch(context, reactor);
        });
    WatchRequest create;
    *create.mutable_create_request() = request;
    call->Send(std::move(create));
    // The first answer confirms (created) or refuses the watch.
    absl::StatusOr<WatchResponse> created =
        call->Next(std::min(deadline, started + options_.attempt_timeout));
    if (created.ok() && created->created() && !created->canceled()) {
      if (index != first) SetCurrent(index);
      return std::unique_ptr<EtcdWatchStream>(
          new EtcdWatchStream(member.endpoint, std::move(call)));
    }
    if (created.ok() && created->canceled() && created->compact_revision() > 0) {
      return absl::OutOfRangeError(absl::StrCat("etcd Watch.Watch on ", member.endpoint,
                                                ": revision compacted at ",
                                                created->compact_revision()));
    }
    const std::string why = created.ok() ? absl::StrCat("refused: ", created->cancel_reason())
                                         : std::string(created.status().message());
    if (failures.size() < members_.size()) {
      failures.push_back(absl::StrCat(member.endpoint, ": ", why));
    }
    SetCurrent((index + 1) % members_.size());
    // Everything refused at once (nothing listening): pause before the next round.
    if ((tries + 1) % members_.size() == 0 && absl::Now() - started < absl::Milliseconds(50)) {
      absl::SleepFor(std::min(absl::Milliseconds(50), deadline - absl::Now()));
    }
  }
  return absl::DeadlineExceededError(
      absl::StrCat("etcd Watch.Watch: no endpoint confirmed the watch before the deadline (",
                   absl::StrJoin(failures, "; "), ")"));
}

}  // namespace taskboard::ha
