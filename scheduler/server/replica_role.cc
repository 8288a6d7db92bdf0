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
  role->applied_index_ = role->follower_->position().index;
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
  const std::string& me = options_.ha.replica_id;
  const uint64_t applied = applied_index_.load();
  if (!set.has_value()) {
    // A new cluster (docs/decisions.md, decision 214): a replica that holds
    // no replicated batch stands aside for two TTLs after it started, so
    // that a replica with data (a restored backup, the former single
    // scheduler) is elected first; then any replica may lead.
    if (applied == 0 && absl::Now() < started_ + 2 * options_.ha.lease_ttl) {
      log::Debug("not campaigning yet: a new cluster, and this replica holds no data")
          .With("replica", me);
      return false;
    }
    return true;
  }
  // Data older than the set says (a wiped or restored member): it lacks
  // acknowledged writes (decision 213).
  if (applied < set->index) {
    log::Warn("not campaigning: this replica's store is older than the in-sync set says")
        .With("replica", me)
        .With("applied_index", static_cast<int64_t>(applied))
        .With("in_sync_index", static_cast<int64_t>(set->index));
    return false;
  }
  // During a handover by hand only the named successor campaigns
  // (docs/operations.md#failing-over-by-hand).
  const bool eligible = set->MayCampaign(me, absl::Now());
  if (!eligible) {
    log::Debug("not campaigning: not in the in-sync set")
        .With("replica", me)
        .With("in_sync", absl::StrJoin(set->replicas, ","))
        .With("last_leader", set->leader)
        .With("successor", set->successor);
  }
  return eligible;
}

void ReplicaRole::RunOnRoleThread(std::function<void(bool shutting_down)> task) {
  {
    absl::MutexLock lock(&mu_);
    if (!shutting_down_) {
      tasks_.push_back(std::move(task));
      return;
    }
  }
  task(/*shutting_down=*/true);
}

void ReplicaRole::Enqueue(const ha::ElectionEvent& event) {
  absl::MutexLock lock(&mu_);
  events_.push_back(event);
}

void ReplicaRole::Run() {
  while (true) {
    std::optional<ha::ElectionEvent> event;
    std::function<void(bool)> task;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
        return shutting_down_ || !events_.empty() || !tasks_.empty();
      };
      mu_.AwaitWithTimeout(absl::Condition(&ready), kTick);
      if (shutting_down_) return;
      if (!tasks_.empty()) {
        task = std::move(tasks_.front());
        tasks_.pop_front();
      } else if (!events_.empty()) {
        event = std::move(events_.front());
        events_.pop_front();
      }
    }
    if (task) {
      task(/*shutting_down=*/false);
    } else if (event.has_value()) {
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
  applied_index_ = status.applied.index;
  status.may_have_lost_writes = may_have_lost_writes_;
  status.lost_writes = lost_writes_;
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
  ha::LeaderWriteHook* hook = hook_.get();
  gate_ = std::make_unique<ha::InSyncGate>(
      ha::InSyncGateOptions{
          .sync_replicas = static_cast<size_t>(std::max(options_.ha.sync_replicas, 1)),
          .written_index = [hook] { return hook->last().index; },
          .lease_valid = [election] { return election->IsLeader(); }},
      &progress_);
  // During a switchover the leader admits no new call (they answer
  // NotLeader) while what was admitted finishes and the target catches up.
  std::atomic<bool>* handing_over = &handing_over_;
  if (absl::Status promoted = options_.promote(
          hook_, gate_.get(),
          [election, handing_over] { return election->IsLeader() && !handing_over->load(); });
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
  ReadLostWritesRecord();
  if (forced_here_ && options_.promoted_by_force) options_.promoted_by_force(lost_writes_);
  log::Info("became leader")
      .With("replica", options_.ha.replica_id)
      .With("may_have_lost_writes", may_have_lost_writes_)
      .With("epoch", epoch)
      .With("applied_index", static_cast<int64_t>(applied.index))
      .With("store_index", static_cast<int64_t>(hook_->last().index))
      .With("promotion_ms", absl::ToInt64Milliseconds(absl::Now() - started));
}

void ReplicaRole::StepDown(const std::string& reason) {
  // What the followers did not acknowledge is never acknowledged by this
  // leader (docs/high-availability.md#acknowledged-writes).
  const size_t dropped =
      promoted_.load() && options_.abandon_unreleased ? options_.abandon_unreleased() : 0;
  if (options_.metrics != nullptr) options_.metrics->EffectsDropped(dropped);
  log::Error(absl::StrCat("stepped down: ", reason))
      .With("replica", options_.ha.replica_id)
      .With("effects_dropped", static_cast<int64_t>(dropped))
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
  if (!handing_over_.load()) MaintainInSync();
  if (options_.metrics != nullptr) PublishLeaderMetrics();
}

void ReplicaRole::PublishLeaderMetrics() {
  options_.metrics->SetAppliedIndex(hook_->last().index);
  options_.metrics->SetInSyncFollowers(in_sync_.size());
  const int64_t now_ms = absl::ToUnixMillis(absl::Now());
  for (const ha::ReplicaProgress::Replica& replica : progress_.Snapshot()) {
    const ha::ReplicaLog::Lag lag = log_.LagAfter(replica.durable_index);
    HaMetrics::FollowerLag metric;
    metric.batches = static_cast<int64_t>(lag.batches);
    metric.bytes = static_cast<int64_t>(lag.bytes);
    if (lag.oldest_unix_ms.has_value()) {
      metric.seconds = std::max<double>(0, static_cast<double>(now_ms - *lag.oldest_unix_ms) / 1e3);
    }
    options_.metrics->SetFollowerLag(replica.id, metric);
  }
}

void ReplicaRole::MaintainInSync() {
  if (!election_->IsLeader()) return;
  const size_t wanted = static_cast<size_t>(std::max(options_.ha.sync_replicas, 1));
  const std::optional<ha::InSyncGate::Waiting> waiting = gate_->waiting();
  // A write kept waiting past --ha-sync-timeout makes the members that lack
  // it lag (docs/decisions.md, decision 170).
  const bool stalled =
      waiting.has_value() && absl::Now() - waiting->since >= options_.ha.sync_timeout;
  // What a joining follower must hold: the oldest write still waiting (so
  // that it can release it), or every batch written when none waits.
  const uint64_t must_hold = waiting.has_value() ? waiting->index : hook_->last().index;
  std::vector<ha::ReplicaProgress::Replica> replicas = progress_.Snapshot();
  auto find = [&](const std::string& id) -> const ha::ReplicaProgress::Replica* {
    for (const auto& replica : replicas) {
      if (replica.id == id) return &replica;
    }
    return nullptr;
  };
  // Members stay while they stream and keep up (decision 168); a lagging
  // one is replaced below, if a follower can take its place.
  std::vector<std::string> members;
  std::vector<std::string> lagging;
  for (const std::string& id : in_sync_) {
    const ha::ReplicaProgress::Replica* replica = find(id);
    const bool lags = replica == nullptr || !replica->connected ||
                      (stalled && replica->durable_index < waiting->index);
    (lags ? lagging : members).push_back(id);
  }
  std::sort(replicas.begin(), replicas.end(),
            [](const auto& a, const auto& b) { return a.durable_index > b.durable_index; });
  for (const ha::ReplicaProgress::Replica& replica : replicas) {
    if (members.size() >= wanted) break;
    if (!replica.connected || replica.durable_index < must_hold) continue;
    if (std::find(members.begin(), members.end(), replica.id) != members.end()) continue;
    if (std::find(lagging.begin(), lagging.end(), replica.id) != lagging.end()) continue;
    members.push_back(replica.id);
  }
  if (!lagging.empty() && members.size() < wanted) {
    // Strict (decision 170): removing a lagging member would leave fewer
    // than --ha-sync-replicas, so it stays and writes wait for it; it holds
    // every write acknowledged so far and may still take over.
    if (stalled_on_ != lagging.front()) {
      stalled_on_ = lagging.front();
      log::Warn(
          "an in-sync follower lags and no other follower holds the waiting writes; "
          "writes wait for it")
          .With("lagging", absl::StrJoin(lagging, ","))
          .With("waiting_index", static_cast<int64_t>(waiting.has_value() ? waiting->index : 0))
          .With("sync_replicas", static_cast<int64_t>(wanted));
    }
    members = in_sync_;
  } else {
    stalled_on_.clear();
  }
  // Until a first follower caught up, no set is written: any replica may
  // still campaign (as before this leader's first term).
  if (members == in_sync_ && (in_sync_written_ || members.empty())) return;
  // Counted before etcd lists them (a release needs them from now on);
  // each one added must already hold what was released (Patroni's order).
  const uint64_t released = gate_->BeginChange(members);
  for (const std::string& id : members) {
    if (std::find(in_sync_.begin(), in_sync_.end(), id) != in_sync_.end()) continue;
    const ha::ReplicaProgress::Replica* replica = find(id);
    if (replica == nullptr || replica->durable_index < released) {
      if (!in_sync_uncertain_) gate_->Changed(in_sync_);
      return;
    }
  }
  ha::InSyncSet set;
  set.replicas = members;
  set.index = released;
  if (absl::Status written = election_->UpdateInSync(set); !written.ok()) {
    // The write may have landed or not: the gate keeps needing both sets.
    log::Warn("cannot write the in-sync set; retrying")
        .With("in_sync", absl::StrJoin(members, ","))
        .With("error", written.message());
    in_sync_uncertain_ = true;
    return;
  }
  in_sync_uncertain_ = false;
  // Only now may writes that the members dropped lack be released.
  gate_->Changed(members);
  if (!lagging.empty()) {
    log::Warn("replaced a lagging in-sync follower")
        .With("removed", absl::StrJoin(lagging, ","))
        .With("in_sync", absl::StrJoin(members, ","))
        .With("sync_timeout_ms", absl::ToInt64Milliseconds(options_.ha.sync_timeout));
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
  std::deque<std::function<void(bool)>> tasks;
  {
    absl::MutexLock lock(&mu_);
    tasks.swap(tasks_);
  }
  for (auto& task : tasks) task(/*shutting_down=*/true);
  if (service_ != nullptr) service_->Close();
}

void ReplicaRole::Stop() {
  if (election_ != nullptr) election_->Stop();
  if (follower_ != nullptr) follower_->Stop();
}

}  // namespace taskboard::server
