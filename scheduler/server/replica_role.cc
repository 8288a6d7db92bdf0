#include "scheduler/server/replica_role.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log/log.h"
#include "scheduler/ha/leader_value.h"

namespace taskboard::server {
namespace {

// How often the role thread looks at the follower's lag and the leader's
// in-sync set when no election event wakes it.
constexpr absl::Duration kTick = absl::Milliseconds(200);

}  // namespace

ReplicaRole::ReplicaRole(ReplicaRoleOptions options) : options_(std::move(options)) {}

absl::StatusOr<std::unique_ptr<ReplicaRole>> ReplicaRole::Start(ReplicaRoleOptions options) {
  std::unique_ptr<ReplicaRole> role(new ReplicaRole(std::move(options)));
  const HaOptions& ha = role->options_.ha;
  absl::StatusOr<std::unique_ptr<ha::ReplicaFollower>> follower = ha::ReplicaFollower::Start(
      ha::ReplicaFollowerOptions{.replica_id = ha.replica_id,
                                 .data_dir = role->options_.data_dir,
                                 .fsync = role->options_.durability == store::Durability::kSync,
                                 .credentials = ha.credentials,
                                 .token = ha.token});
  if (!follower.ok()) return follower.status();
  role->follower_ = *std::move(follower);
  absl::StatusOr<std::unique_ptr<ha::EtcdClient>> etcd =
      ha::EtcdClient::Create(ha::EtcdClientOptions{.endpoints = ha.etcd_endpoints});
  if (!etcd.ok()) return etcd.status();
  role->etcd_ = *std::move(etcd);
  role->kv_ = std::make_unique<ha::EtcdElectionKv>(role->etcd_.get());
  ReplicaRole* raw = role.get();
  absl::StatusOr<std::unique_ptr<ha::LeaderElection>> election = ha::LeaderElection::Create(
      ha::LeaderElectionOptions{
          .prefix = ha.etcd_prefix,
          .cluster = ha.cluster,
          .candidate_id = ha.replica_id,
          .advertise = ha::EncodeLeaderValue(
              {.replica = ha.replica_id, .grpc = ha.advertise, .http = ha.advertise_http}),
          .ttl = ha.lease_ttl,
          .eligible = [raw](const std::optional<ha::InSyncSet>& set) { return raw->Eligible(set); },
          .on_event = [raw](const ha::ElectionEvent& event) { raw->Enqueue(event); }},
      role->kv_.get());
  if (!election.ok()) return election.status();
  role->election_ = *std::move(election);
  role->thread_ = std::thread([raw] { raw->Run(); });
  role->election_->Start();
  log::Info("replica following; campaigning for leader")
      .With("replica", ha.replica_id)
      .With("cluster", ha.cluster)
      .With("advertise", ha.advertise)
      .With("etcd", absl::StrJoin(ha.etcd_endpoints, ","));
  return role;
}

ReplicaRole::~ReplicaRole() {
  BeginShutdown();
  Stop();
}

bool ReplicaRole::IsLeader() const { return promoted_.load() && election_->IsLeader(); }

bool ReplicaRole::Eligible(const std::optional<ha::InSyncSet>& set) const {
  // No set yet: the cluster's first election (or none of its leaders had a
  // follower in sync); any replica may lead.
  if (!set.has_value()) return true;
  const std::string& me = options_.ha.replica_id;
  const bool eligible = set->leader == me || std::find(set->replicas.begin(), set->replicas.end(),
                                                       me) != set->replicas.end();
  if (!eligible) {
    log::Debug("not campaigning: not in the in-sync set")
        .With("replica", me)
        .With("in_sync", absl::StrJoin(set->replicas, ","))
        .With("last_leader", set->leader);
  }
  return eligible;
}

void ReplicaRole::Enqueue(const ha::ElectionEvent& event) {
  absl::MutexLock lock(&mu_);
  events_.push_back(event);
}

void ReplicaRole::Run() {
  while (true) {
    std::optional<ha::ElectionEvent> event;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
        return shutting_down_ || !events_.empty();
      };
      mu_.AwaitWithTimeout(absl::Condition(&ready), kTick);
      if (shutting_down_) return;
      if (!events_.empty()) {
        event = std::move(events_.front());
        events_.pop_front();
      }
    }
    if (event.has_value()) {
      Handle(*event);
    } else {
      Tick();
    }
    PublishStatus();
  }
}

void ReplicaRole::PublishStatus() {
  ReplicaStatus status;
  status.replica_id = options_.ha.replica_id;
  status.advertise = options_.ha.advertise;
  if (std::optional<LeaderHint> leader = options_.handle->leader(); leader.has_value()) {
    status.leader = leader->grpc;
  }
  status.epoch = last_observed_epoch_;
  if (follower_ != nullptr) {
    status.applied = follower_->position();
    status.leader_last_index = follower_->leader_last_index();
  } else if (promoted_.load()) {
    status.leading = election_->IsLeader();
    status.epoch = election_->epoch();
    status.leader = options_.ha.advertise;
    status.applied = hook_->last();
    status.leader_last_index = status.applied.index;
    status.in_sync = in_sync_;
    status.followers = progress_.Snapshot();
  }
  absl::MutexLock lock(&status_mu_);
  status_ = std::move(status);
}

ReplicaStatus ReplicaRole::Status() const {
  absl::MutexLock lock(&status_mu_);
  return status_;
}

void ReplicaRole::Handle(const ha::ElectionEvent& event) {
  using Kind = ha::ElectionEvent::Kind;
  switch (event.kind) {
    case Kind::kLeaderObserved: {
      const ha::LeaderValue leader = ha::DecodeLeaderValue(event.leader);
      options_.handle->SetLeader(LeaderHint{leader.grpc, leader.http, event.epoch});
      last_observed_epoch_ = event.epoch;
      if (options_.metrics != nullptr) options_.metrics->SetEpoch(event.epoch);
      if (follower_ != nullptr && leader.grpc != options_.ha.advertise) {
        follower_->Follow(leader.grpc, static_cast<uint64_t>(event.epoch));
      }
      log::Info("following the leader")
          .With("leader", leader.replica)
          .With("address", leader.grpc)
          .With("epoch", event.epoch);
      return;
    }
    case Kind::kLeaderGone:
      options_.handle->SetLeader(std::nullopt);
      log::Info("the leader's key is gone; campaigning").With("epoch", event.epoch);
      return;
    case Kind::kElected:
      Promote(event.epoch);
      return;
    case Kind::kDeposed:
      StepDown(absl::StrCat("term ", event.epoch, " ended: ", event.reason));
  }
}

void ReplicaRole::Promote(int64_t epoch) {
  const absl::Time started = absl::Now();
  // Stop following: the applied state is synced and the directory closed,
  // to be opened as the leader's store.
  const ha::LogPosition applied = follower_->position();
  follower_->Stop();
  follower_.reset();
  options_.handle->SetLeader(LeaderHint{options_.ha.advertise, options_.ha.advertise_http, epoch});
  hook_ = std::make_shared<ha::LeaderWriteHook>(static_cast<uint64_t>(epoch), &log_);
  ha::LeaderElection* election = election_.get();
  if (absl::Status promoted = options_.promote(hook_, [election] { return election->IsLeader(); });
      !promoted.ok()) {
    StepDown(absl::StrCat("cannot start as the leader of epoch ", epoch, ": ", promoted.message()));
  }
  if (absl::Status opened = hook_->open_status(); !opened.ok()) {
    StepDown(
        absl::StrCat("cannot number the store's batches in epoch ", epoch, ": ", opened.message()));
  }
  service_ = std::make_unique<ha::LeaderReplicaService>(
      ha::LeaderReplicaServiceOptions{
          .epoch = static_cast<uint64_t>(epoch),
          .column_families = hook_->ColumnFamilies(),
          // Beside the data directory, on its filesystem (SST files are hard
          // links), outside the directory RocksDB owns.
          .checkpoint_dir = absl::StrCat(options_.data_dir, ".replica-checkpoints")},
      &log_, &progress_, hook_.get());
  options_.replica_service->Set(service_.get());
  promoted_ = true;
  if (options_.metrics != nullptr) {
    options_.metrics->SetLeader(true);
    options_.metrics->SetEpoch(epoch);
    options_.metrics->SetLagBatches(0);
    options_.metrics->ElectionWon(/*failover=*/last_observed_epoch_ != 0);
  }
  log::Info("became leader")
      .With("replica", options_.ha.replica_id)
      .With("epoch", epoch)
      .With("applied_index", static_cast<int64_t>(applied.index))
      .With("store_index", static_cast<int64_t>(hook_->last().index))
      .With("promotion_ms", absl::ToInt64Milliseconds(absl::Now() - started));
}

void ReplicaRole::StepDown(const std::string& reason) {
  log::Error(absl::StrCat("stepped down: ", reason))
      .With("replica", options_.ha.replica_id)
      .With("exit_code", kSteppedDownExitCode);
  std::fflush(stderr);
  // No destructor runs: no thread of this leader may send anything more.
  // Whoever supervises the process starts it again, as a follower.
  std::_Exit(kSteppedDownExitCode);
}

void ReplicaRole::Tick() {
  if (follower_ != nullptr) {
    const uint64_t leader_last = follower_->leader_last_index();
    const uint64_t position = follower_->position().index;
    if (options_.metrics != nullptr) {
      options_.metrics->SetLagBatches(
          leader_last > position ? static_cast<int64_t>(leader_last - position) : 0);
      options_.metrics->SetAppliedIndex(position);
    }
    return;
  }
  if (!promoted_.load()) return;
  if (options_.metrics != nullptr) options_.metrics->SetAppliedIndex(hook_->last().index);
  MaintainInSync();
}

void ReplicaRole::MaintainInSync() {
  if (!election_->IsLeader()) return;
  const uint64_t last = hook_->last().index;
  std::vector<ha::ReplicaProgress::Replica> replicas = progress_.Snapshot();
  auto connected = [&](const std::string& id) {
    return std::any_of(replicas.begin(), replicas.end(),
                       [&](const auto& replica) { return replica.id == id && replica.connected; });
  };
  // Members stay while they stream; a follower joins once it holds every
  // batch this leader wrote (docs/decisions.md, decision 168).
  std::vector<std::string> members;
  for (const std::string& id : in_sync_) {
    if (connected(id)) members.push_back(id);
  }
  std::sort(replicas.begin(), replicas.end(),
            [](const auto& a, const auto& b) { return a.durable_index > b.durable_index; });
  for (const ha::ReplicaProgress::Replica& replica : replicas) {
    if (members.size() >= static_cast<size_t>(options_.ha.sync_replicas)) break;
    if (!replica.connected || replica.durable_index < last) continue;
    if (std::find(members.begin(), members.end(), replica.id) != members.end()) continue;
    members.push_back(replica.id);
  }
  // Until a first follower caught up, no set is written: any replica may
  // still campaign (as before this leader's first term).
  if (members == in_sync_ && (in_sync_written_ || members.empty())) return;
  ha::InSyncSet set;
  set.replicas = members;
  if (absl::Status written = election_->UpdateInSync(set); !written.ok()) {
    log::Warn("cannot write the in-sync set; retrying")
        .With("in_sync", absl::StrJoin(members, ","))
        .With("error", written.message());
    return;
  }
  in_sync_ = std::move(members);
  in_sync_written_ = true;
  log::Info("in-sync set written")
      .With("in_sync", absl::StrJoin(in_sync_, ","))
      .With("epoch", election_->epoch());
}

void ReplicaRole::BeginShutdown() {
  {
    absl::MutexLock lock(&mu_);
    if (shutting_down_) return;
    shutting_down_ = true;
  }
  if (thread_.joinable()) thread_.join();
  if (service_ != nullptr) service_->Close();
}

void ReplicaRole::Stop() {
  if (election_ != nullptr) election_->Stop();
  if (follower_ != nullptr) follower_->Stop();
}

}  // namespace taskboard::server
