#include "scheduler/ha/leader_election.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/log/log.h"

namespace taskboard::ha {
namespace {

absl::Duration Positive(absl::Duration d) { return std::max(d, absl::ZeroDuration()); }

}  // namespace

absl::StatusOr<ElectionKeys> ElectionKeys::For(const std::string& prefix,
                                               const std::string& cluster) {
  if (!absl::StartsWith(prefix, "/")) {
    return absl::InvalidArgumentError(
        absl::StrCat("etcd key prefix '", prefix, "' must start with '/'"));
  }
  if (cluster.empty() || absl::StrContains(cluster, '/')) {
    return absl::InvalidArgumentError(
        absl::StrCat("cluster name '", cluster, "' must be non-empty and hold no '/'"));
  }
  const std::string base =
      absl::StrCat(prefix, absl::EndsWith(prefix, "/") ? "" : "/", cluster, "/");
  return ElectionKeys{absl::StrCat(base, "leader"), absl::StrCat(base, "in_sync"),
                      absl::StrCat(base, "may_have_lost_writes")};
}

absl::StatusOr<std::unique_ptr<LeaderElection>> LeaderElection::Create(
    LeaderElectionOptions options, ElectionKv* kv) {
  absl::StatusOr<ElectionKeys> keys = ElectionKeys::For(options.prefix, options.cluster);
  if (!keys.ok()) return keys.status();
  if (options.candidate_id.empty()) {
    return absl::InvalidArgumentError("leader election: the candidate id is empty");
  }
  if (options.advertise.empty()) {
    return absl::InvalidArgumentError("leader election: the advertised address is empty");
  }
  if (options.ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("leader election: the lease TTL must be positive (got ",
                     absl::FormatDuration(options.ttl), ")"));
  }
  return std::unique_ptr<LeaderElection>(
      new LeaderElection(std::move(options), *std::move(keys), kv));
}

LeaderElection::LeaderElection(LeaderElectionOptions options, ElectionKeys keys, ElectionKv* kv)
    : options_(std::move(options)),
      keys_(std::move(keys)),
      kv_(kv),
      clock_(options_.clock != nullptr ? options_.clock : DefaultLeaseClock()),
      margin_(options_.margin > absl::ZeroDuration()
                  ? options_.margin
                  : std::max(absl::Milliseconds(250), options_.ttl / 6)),
      keepalive_interval_(options_.keepalive_interval > absl::ZeroDuration()
                              ? options_.keepalive_interval
                              : options_.ttl / 6),
      granted_ttl_(options_.ttl) {}

LeaderElection::~LeaderElection() { Stop(); }

void LeaderElection::Start() {
  absl::MutexLock lock(&mu_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { Run(); });
}

void LeaderElection::Run() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
    }
    const absl::Duration wait = Step();
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), wait);
  }
}

void LeaderElection::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
  if (IsLeader()) {
    Resign().IgnoreError();
    return;
  }
  int64_t pending;
  {
    absl::MutexLock lock(&mu_);
    pending = std::exchange(revoke_pending_, 0);
    if (pending == 0) pending = std::exchange(lease_, 0);
  }
  // Best effort: the lease expires by itself otherwise.
  if (pending != 0) kv_->RevokeLease(pending, RpcDeadline()).IgnoreError();
}

bool LeaderElection::IsLeaderLocked(absl::Duration now) const {
  return role_ == Role::kLeader && now < deadline_;
}

bool LeaderElection::IsLeader() const {
  absl::ReaderMutexLock lock(&mu_);
  return IsLeaderLocked(clock_->Now());
}

int64_t LeaderElection::epoch() const {
  absl::ReaderMutexLock lock(&mu_);
  return epoch_;
}

std::optional<absl::Duration> LeaderElection::LeaseDeadline() const {
  absl::ReaderMutexLock lock(&mu_);
  if (role_ != Role::kLeader) return std::nullopt;
  return deadline_;
}

absl::Duration LeaderElection::granted_ttl() const {
  absl::ReaderMutexLock lock(&mu_);
  return granted_ttl_;
}

std::optional<LeaderElection::Leader> LeaderElection::CurrentLeader() const {
  absl::ReaderMutexLock lock(&mu_);
  if (role_ == Role::kLeader) {
    if (IsLeaderLocked(clock_->Now())) return Leader{options_.advertise, epoch_};
    return std::nullopt;  // past the deadline: nobody is known to lead
  }
  return observed_;
}

absl::Time LeaderElection::RpcDeadline() const { return absl::Now() + options_.rpc_timeout; }

void LeaderElection::Emit(const ElectionEvent& event) {
  if (options_.on_event) options_.on_event(event);
}

absl::Duration LeaderElection::Step() {
  Role role;
  {
    absl::ReaderMutexLock lock(&mu_);
    role = role_;
  }
  return role == Role::kLeader ? StepLeader() : StepFollower();
}

absl::Duration LeaderElection::StepLeader() {
  uint64_t term;
  int64_t lease;
  absl::Duration deadline;
  {
    absl::ReaderMutexLock lock(&mu_);
    term = term_;
    lease = lease_;
    deadline = deadline_;
  }
  const absl::Duration sent = clock_->Now();
  if (sent >= deadline) {
    Depose(term, deadline, "no keepalive was answered in time to extend the lease");
    return absl::ZeroDuration();
  }
  // Never wait for an answer past the deadline: it could not save the term.
  const absl::StatusOr<absl::Duration> ttl =
      kv_->KeepAlive(lease, absl::Now() + std::min(options_.rpc_timeout, deadline - sent));
  const absl::Duration answered = clock_->Now();
  if (!ttl.ok() && ttl.status().code() == absl::StatusCode::kNotFound) {
    Depose(term, answered, absl::StrCat("etcd says the lease is gone: ", ttl.status().message()));
    return absl::ZeroDuration();
  }
  bool expired = false;
  {
    absl::MutexLock lock(&mu_);
    if (term_ != term || role_ != Role::kLeader) return absl::ZeroDuration();  // resigned
    // An answer that comes after the deadline does not revive the term:
    // IsLeader may already have said no.
    expired = answered >= deadline_;
    if (!expired && ttl.ok()) deadline_ = std::max(deadline_, sent + *ttl - margin_);
    deadline = deadline_;
  }
  if (expired) {
    Depose(term, deadline, "no keepalive was answered in time to extend the lease");
    return absl::ZeroDuration();
  }
  if (!ttl.ok()) {
    log::Warn("etcd keepalive failed")
        .With("cluster", options_.cluster)
        .With("epoch", epoch())
        .With("error", ttl.status())
        .With("ms_left", absl::ToInt64Milliseconds(deadline - answered));
    return std::min(options_.retry_interval, Positive(deadline - answered));
  }
  return std::min(Positive(sent + keepalive_interval_ - clock_->Now()),
                  Positive(deadline - clock_->Now()));
}

void LeaderElection::Depose(uint64_t term, absl::Duration at, std::string reason) {
  ElectionEvent event;
  event.kind = ElectionEvent::Kind::kDeposed;
  {
    absl::MutexLock lock(&mu_);
    if (term_ != term || role_ != Role::kLeader) return;
    role_ = Role::kFollower;
    revoke_pending_ = std::exchange(lease_, 0);
    observed_.reset();
    event.epoch = epoch_;
    event.leader = options_.advertise;
    event.at = std::min(at, deadline_);
  }
  event.reason = std::move(reason);
  log::Warn("stepped down as leader")
      .With("cluster", options_.cluster)
      .With("epoch", event.epoch)
      .With("reason", event.reason);
  Emit(event);
}

absl::Duration LeaderElection::StepFollower() {
  // A lease of an ended term or a lost campaign goes first: while it holds
  // the leader key nobody can win.
  int64_t pending;
  {
    absl::ReaderMutexLock lock(&mu_);
    pending = revoke_pending_;
  }
  if (pending != 0) {
    if (!kv_->RevokeLease(pending, RpcDeadline()).ok()) return options_.retry_interval;
    absl::MutexLock lock(&mu_);
    if (revoke_pending_ == pending) revoke_pending_ = 0;
  }

  absl::StatusOr<KvRead> read = kv_->Get(keys_.leader, RpcDeadline());
  if (!read.ok()) return options_.retry_interval;
  if (read->entry.has_value()) {
    const KvEntry& holder = *read->entry;
    bool ours;
    absl::Duration campaign_sent;
    {
      absl::ReaderMutexLock lock(&mu_);
      ours = lease_ != 0 && holder.lease == lease_;
      campaign_sent = lease_granted_at_;
    }
    // A campaign Txn that timed out may have been applied all the same.
    if (ours) {
      BecomeLeader(holder.create_revision, campaign_sent);
      return absl::ZeroDuration();
    }
    Observe(holder);
    absl::StatusOr<std::optional<KvChange>> change =
        kv_->WaitForChange(keys_.leader, read->revision, absl::Now() + options_.observe_interval);
    if (!change.ok()) return options_.retry_interval;
    if (change->has_value() && (*change)->deleted) LeaderGone();
    return absl::ZeroDuration();
  }
  LeaderGone();

  absl::Duration holdoff;
  {
    absl::ReaderMutexLock lock(&mu_);
    holdoff = holdoff_until_ - clock_->Now();
  }
  if (holdoff > absl::ZeroDuration()) {
    kv_->WaitForChange(keys_.leader, read->revision,
                       absl::Now() + std::min(options_.observe_interval, holdoff))
        .IgnoreError();
    return absl::ZeroDuration();
  }

  std::vector<KvCondition> conditions = {{keys_.leader, KvCondition::Target::kCreateRevision, 0}};
  if (options_.eligible) {
    absl::StatusOr<KvRead> in_sync = kv_->Get(keys_.in_sync, RpcDeadline());
    if (!in_sync.ok()) return options_.retry_interval;
    std::optional<InSyncSet> set;
    if (in_sync->entry.has_value()) {
      absl::StatusOr<InSyncSet> decoded = DecodeInSyncSet(in_sync->entry->value);
      if (!decoded.ok()) {
        log::Error("cannot read the in-sync set; not campaigning")
            .With("key", keys_.in_sync)
            .With("error", decoded.status());
        return options_.observe_interval;
      }
      set = *std::move(decoded);
    }
    if (!options_.eligible(set)) {
      kv_->WaitForChange(keys_.leader, read->revision, absl::Now() + options_.observe_interval)
          .IgnoreError();
      return absl::ZeroDuration();
    }
    conditions.push_back({keys_.in_sync, KvCondition::Target::kModRevision,
                          in_sync->entry.has_value() ? in_sync->entry->mod_revision : 0});
  }

  int64_t lease;
  {
    absl::ReaderMutexLock lock(&mu_);
    lease = lease_;
  }
  if (lease == 0) {
    const absl::Duration asked = clock_->Now();
    absl::StatusOr<GrantedLease> granted = kv_->GrantLease(options_.ttl, RpcDeadline());
    if (!granted.ok()) return options_.retry_interval;
    lease = granted->id;
    absl::MutexLock lock(&mu_);
    lease_ = granted->id;
    // etcd starts the TTL after it got the request: measuring from the
    // send is on the safe side.
    lease_granted_at_ = asked;
    granted_ttl_ = granted->ttl;
  }
  const absl::Duration campaign_sent = clock_->Now();
  absl::StatusOr<KvPutResult> put =
      kv_->PutIf(conditions, keys_.leader, options_.advertise, lease, RpcDeadline());
  if (!put.ok()) return options_.retry_interval;  // the next read shows whether it applied
  if (put->succeeded) {
    BecomeLeader(put->revision, campaign_sent);
    return absl::ZeroDuration();
  }
  // Lost: another candidate won, or the in-sync set changed. A fresh lease
  // is taken for the next campaign.
  absl::MutexLock lock(&mu_);
  if (lease_ == lease) revoke_pending_ = std::exchange(lease_, 0);
  return absl::ZeroDuration();
}

void LeaderElection::BecomeLeader(int64_t epoch, absl::Duration campaign_sent) {
  ElectionEvent event;
  event.kind = ElectionEvent::Kind::kElected;
  {
    absl::MutexLock lock(&mu_);
    role_ = Role::kLeader;
    ++term_;
    epoch_ = epoch;
    deadline_ = lease_granted_at_ + granted_ttl_ - margin_;
    observed_ = Leader{options_.advertise, epoch};
    event.epoch = epoch;
    event.leader = options_.advertise;
    event.at = clock_->Now();
    event.campaign_sent = campaign_sent;
  }
  log::Info("elected leader")
      .With("cluster", options_.cluster)
      .With("epoch", epoch)
      .With("advertise", options_.advertise);
  Emit(event);
}

void LeaderElection::Observe(const KvEntry& holder) {
  const Leader leader{holder.value, holder.create_revision};
  {
    absl::MutexLock lock(&mu_);
    if (observed_.has_value() && observed_->address == leader.address &&
        observed_->epoch == leader.epoch) {
      return;
    }
    observed_ = leader;
  }
  ElectionEvent event;
  event.kind = ElectionEvent::Kind::kLeaderObserved;
  event.epoch = leader.epoch;
  event.leader = leader.address;
  event.at = clock_->Now();
  Emit(event);
}

void LeaderElection::LeaderGone() {
  ElectionEvent event;
  event.kind = ElectionEvent::Kind::kLeaderGone;
  {
    absl::MutexLock lock(&mu_);
    if (!observed_.has_value()) return;
    event.epoch = observed_->epoch;
    event.leader = observed_->address;
    observed_.reset();
  }
  event.at = clock_->Now();
  Emit(event);
}

absl::Status LeaderElection::Resign() {
  uint64_t term;
  int64_t lease;
  const absl::Duration now = clock_->Now();
  {
    absl::MutexLock lock(&mu_);
    if (!IsLeaderLocked(now)) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot resign: not the leader of cluster '", options_.cluster, "'"));
    }
    term = term_;
    lease = lease_;
    holdoff_until_ = now + granted_ttl_;
  }
  Depose(term, now, "resigned");
  absl::Status revoked = kv_->RevokeLease(lease, RpcDeadline());
  if (revoked.ok()) {
    absl::MutexLock lock(&mu_);
    if (revoke_pending_ == lease) revoke_pending_ = 0;
  }
  return revoked;
}

absl::Status LeaderElection::UpdateInSync(InSyncSet set) {
  int64_t epoch;
  {
    absl::ReaderMutexLock lock(&mu_);
    if (!IsLeaderLocked(clock_->Now())) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot write the in-sync set: not the leader of cluster '", options_.cluster, "'"));
    }
    epoch = epoch_;
  }
  set.leader = options_.candidate_id;
  return WriteInSyncIfEpoch(*kv_, keys_, epoch, std::move(set), RpcDeadline());
}

absl::StatusOr<std::optional<InSyncSet>> LeaderElection::ReadInSync() {
  absl::StatusOr<KvRead> read = kv_->Get(keys_.in_sync, RpcDeadline());
  if (!read.ok()) return read.status();
  if (!read->entry.has_value()) return std::nullopt;
  absl::StatusOr<InSyncSet> set = DecodeInSyncSet(read->entry->value);
  if (!set.ok()) return set.status();
  return *std::move(set);
}

absl::Status WriteInSyncIfEpoch(ElectionKv& kv, const ElectionKeys& keys, int64_t epoch,
                                InSyncSet set, absl::Time deadline) {
  set.epoch = epoch;
  const std::string value = EncodeInSyncSet(set);
  absl::StatusOr<KvRead> current = kv.Get(keys.in_sync, deadline);
  if (!current.ok()) return current.status();
  const std::vector<KvCondition> conditions = {
      {keys.leader, KvCondition::Target::kCreateRevision, epoch},
      {keys.in_sync, KvCondition::Target::kModRevision,
       current->entry.has_value() ? current->entry->mod_revision : 0}};
  absl::StatusOr<KvPutResult> put = kv.PutIf(conditions, keys.in_sync, value, 0, deadline);
  if (!put.ok()) return put.status();
  if (put->succeeded) return absl::OkStatus();
  absl::StatusOr<KvRead> leader = kv.Get(keys.leader, deadline);
  if (!leader.ok()) return leader.status();
  if (!leader->entry.has_value() || leader->entry->create_revision != epoch) {
    return absl::FailedPreconditionError(absl::StrCat(
        "epoch ", epoch, " no longer holds ", keys.leader,
        leader->entry.has_value() ? absl::StrCat(" (epoch ", leader->entry->create_revision, " at ",
                                                 leader->entry->value, " does)")
                                  : std::string(" (nobody does)"),
        "; the in-sync set was not written"));
  }
  absl::StatusOr<KvRead> again = kv.Get(keys.in_sync, deadline);
  if (!again.ok()) return again.status();
  // A Txn retried on another member after it had applied on the first.
  if (again->entry.has_value() && again->entry->value == value) return absl::OkStatus();
  return absl::AbortedError(
      absl::StrCat(keys.in_sync, " changed while it was written; read it and write again"));
}

absl::Status WriteInSyncIfNoLeader(ElectionKv& kv, const ElectionKeys& keys, InSyncSet set,
                                   std::optional<InSyncSet>* before, absl::Time deadline) {
  absl::StatusOr<KvRead> current = kv.Get(keys.in_sync, deadline);
  if (!current.ok()) return current.status();
  before->reset();
  if (current->entry.has_value()) {
    absl::StatusOr<InSyncSet> decoded = DecodeInSyncSet(current->entry->value);
    if (decoded.ok()) *before = *std::move(decoded);
  }
  const std::string value = EncodeInSyncSet(set);
  const std::vector<KvCondition> conditions = {
      {keys.leader, KvCondition::Target::kCreateRevision, 0},
      {keys.in_sync, KvCondition::Target::kModRevision,
       current->entry.has_value() ? current->entry->mod_revision : 0}};
  absl::StatusOr<KvPutResult> put = kv.PutIf(conditions, keys.in_sync, value, 0, deadline);
  if (!put.ok()) return put.status();
  if (put->succeeded) return absl::OkStatus();
  absl::StatusOr<KvRead> leader = kv.Get(keys.leader, deadline);
  if (!leader.ok()) return leader.status();
  if (leader->entry.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat("a leader holds ", keys.leader, " (epoch ", leader->entry->create_revision,
                     ": ", leader->entry->value,
                     "); a promotion by force is only for a cluster that cannot elect one; hand "
                     "over with `taskboard admin ha switchover` instead"));
  }
  return absl::AbortedError(absl::StrCat(keys.in_sync, " changed while it was written; ask again"));
}

}  // namespace taskboard::ha
