#include "scheduler/ha/etcd_election_kv.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace taskboard::ha {
namespace {

KvEntry FromProto(const etcdserverpb::KeyValue& kv) {
  return KvEntry{kv.key(), kv.value(), kv.create_revision(), kv.mod_revision(), kv.lease()};
}

}  // namespace

absl::StatusOr<GrantedLease> EtcdElectionKv::GrantLease(absl::Duration ttl, absl::Time deadline) {
  etcdserverpb::LeaseGrantRequest request;
  // etcd counts whole seconds; never ask for less than was meant.
  request.set_ttl(absl::ToInt64Seconds(absl::Ceil(ttl, absl::Seconds(1))));
  absl::StatusOr<etcdserverpb::LeaseGrantResponse> response =
      client_->LeaseGrant(request, deadline);
  if (!response.ok()) return response.status();
  return GrantedLease{response->id(), absl::Seconds(response->ttl())};
}

absl::StatusOr<absl::Duration> EtcdElectionKv::KeepAlive(int64_t id, absl::Time deadline) {
  absl::MutexLock lock(&keepalive_mu_);
  if (keepalive_ == nullptr) keepalive_ = client_->LeaseKeepAlive();
  absl::StatusOr<int64_t> ttl = keepalive_->KeepAlive(id, deadline);
  if (!ttl.ok()) {
    // The next keepalive goes to the next member, on a fresh stream.
    client_->SkipEndpoint(keepalive_->endpoint());
    keepalive_.reset();
    return ttl.status();
  }
  if (*ttl <= 0) {
    return absl::NotFoundError(absl::StrCat("etcd lease ", id, " expired or was revoked"));
  }
  return absl::Seconds(*ttl);
}

absl::Status EtcdElectionKv::RevokeLease(int64_t id, absl::Time deadline) {
  etcdserverpb::LeaseRevokeRequest request;
  request.set_id(id);
  absl::StatusOr<etcdserverpb::LeaseRevokeResponse> response =
      client_->LeaseRevoke(request, deadline);
  if (!response.ok() && response.status().code() == absl::StatusCode::kNotFound) {
    return absl::OkStatus();
  }
  return response.status();
}

absl::StatusOr<KvRead> EtcdElectionKv::Get(const std::string& key, absl::Time deadline) {
  etcdserverpb::RangeRequest request;
  request.set_key(key);  // serializable stays false: a linearizable read
  absl::StatusOr<etcdserverpb::RangeResponse> response = client_->Range(request, deadline);
  if (!response.ok()) return response.status();
  KvRead read;
  read.revision = response->header().revision();
  if (response->kvs_size() > 0) read.entry = FromProto(response->kvs(0));
  return read;
}

absl::StatusOr<KvPutResult> EtcdElectionKv::PutIf(const std::vector<KvCondition>& conditions,
                                                  const std::string& key, const std::string& value,
                                                  int64_t lease, absl::Time deadline) {
  etcdserverpb::TxnRequest request;
  for (const KvCondition& condition : conditions) {
    etcdserverpb::Compare* compare = request.add_compare();
    compare->set_key(condition.key);
    compare->set_result(etcdserverpb::Compare::EQUAL);
    if (condition.target == KvCondition::Target::kCreateRevision) {
      compare->set_target(etcdserverpb::Compare::CREATE);
      compare->set_create_revision(condition.equals);
    } else {
      compare->set_target(etcdserverpb::Compare::MOD);
      compare->set_mod_revision(condition.equals);
    }
  }
  etcdserverpb::PutRequest* put = request.add_success()->mutable_request_put();
  put->set_key(key);
  put->set_value(value);
  put->set_lease(lease);
  absl::StatusOr<etcdserverpb::TxnResponse> response = client_->Txn(request, deadline);
  if (!response.ok()) return response.status();
  return KvPutResult{response->succeeded(), response->header().revision()};
}

absl::StatusOr<std::optional<KvChange>> EtcdElectionKv::WaitForChange(const std::string& key,
                                                                      int64_t after_revision,
                                                                      absl::Time deadline) {
  etcdserverpb::WatchCreateRequest request;
  request.set_key(key);
  request.set_start_revision(after_revision + 1);
  absl::StatusOr<std::unique_ptr<EtcdWatchStream>> watch = client_->Watch(request, deadline);
  if (!watch.ok()) {
    if (watch.status().code() == absl::StatusCode::kDeadlineExceeded) return std::nullopt;
    return watch.status();
  }
  absl::StatusOr<etcdserverpb::WatchResponse> response = (*watch)->Next(deadline);
  if (!response.ok()) {
    if (response.status().code() == absl::StatusCode::kDeadlineExceeded) return std::nullopt;
    client_->SkipEndpoint((*watch)->endpoint());
    return response.status();
  }
  const etcdserverpb::Event& event = response->events(0);
  KvChange change;
  change.deleted = event.type() == etcdserverpb::Event::DELETE;
  change.entry = FromProto(event.kv());
  change.revision = event.kv().mod_revision();
  return change;
}

}  // namespace taskboard::ha
