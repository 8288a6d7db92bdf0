// ReplicaRole's failover by hand (docs/operations.md#failing-over-by-hand):
// a leader's switchover to an in-sync follower, and a follower's promotion
// by force when no in-sync follower can take over. Both run on the role's
// thread, which owns the in-sync set, the gate and the follower.

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json.h"
#include "common/log/log.h"
#include "scheduler/server/replica_role.h"

namespace taskboard::server {
namespace {

// How often the leader looks at the target's progress while it waits.
constexpr absl::Duration kCatchUpPoll = absl::Milliseconds(10);
// The longest the leader waits for the answer to leave before it resigns.
constexpr absl::Duration kReplyGrace = absl::Seconds(1);

bool Contains(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

std::string SetText(const std::vector<std::string>& ids) {
  return ids.empty() ? std::string("none") : absl::StrJoin(ids, ",");
}

}  // namespace

absl::Duration ReplicaRole::SuccessorWindow() const {
  // Long enough for the successor to see the key go and win (a watch and a
  // Txn); short enough that a successor that died meanwhile does not keep
  // the cluster leaderless for long (docs/decisions.md, decision 211).
  return std::max(absl::Seconds(10), 3 * election_->granted_ttl());
}

void ReplicaRole::Switchover(std::string to, std::function<void(absl::StatusOr<Handover>)> done,
                             std::shared_ptr<absl::Notification> replied) {
  RunOnRoleThread([this, to = std::move(to), done = std::move(done),
                   replied = std::move(replied)](bool shutting_down) {
    if (shutting_down) {
      done(absl::UnavailableError("the replica is shutting down; ask the new leader"));
      return;
    }
    absl::StatusOr<Handover> handover = PrepareHandover(to);
    const bool handing_over = handover.ok();
    done(std::move(handover));
    if (!handing_over) return;
    replied->WaitForNotificationWithTimeout(kReplyGrace);
    // The successor campaigns as soon as the key is gone; this process
    // handles its own deposition next and exits (replica_role.h).
    if (absl::Status resigned = election_->Resign(); !resigned.ok()) {
      log::Warn("switchover: the lease was not revoked; it expires within the TTL")
          .With("error", resigned.message());
    }
  });
}

absl::StatusOr<Handover> ReplicaRole::PrepareHandover(const std::string& to) {
  const std::string& me = options_.ha.replica_id;
  if (!promoted_.load() || !election_->IsLeader()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "replica '", me, "' does not lead; ask the leader (`taskboard admin ha status` shows it)"));
  }
  if (to == me) {
    return absl::InvalidArgumentError(
        absl::StrCat("replica '", me, "' already leads; name a follower with --to"));
  }
  if (in_sync_.empty() || !in_sync_written_) {
    return absl::FailedPreconditionError(
        "no follower is in sync: any other replica may lack acknowledged writes, so a handover "
        "would lose them; wait until `taskboard admin ha status` shows a follower IN-SYNC yes");
  }
  const std::vector<ha::ReplicaProgress::Replica> replicas = progress_.Snapshot();
  auto find = [&](const std::string& id) -> const ha::ReplicaProgress::Replica* {
    for (const auto& replica : replicas) {
      if (replica.id == id) return &replica;
    }
    return nullptr;
  };
  std::string target = to;
  if (target.empty()) {
    for (const std::string& id : in_sync_) {
      const ha::ReplicaProgress::Replica* replica = find(id);
      if (replica != nullptr && replica->connected) {
        target = id;
        break;
      }
    }
    if (target.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "no in-sync follower is connected to the leader (in sync: ", SetText(in_sync_),
          "); start it, or wait until another one catches up"));
    }
  } else if (!Contains(in_sync_, target)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "replica '", target, "' is not in sync (in sync: ", SetText(in_sync_),
        "): it may lack acknowledged writes; hand over to an in-sync follower, or wait until '",
        target, "' catches up and `taskboard admin ha status` shows it IN-SYNC yes"));
  } else if (const ha::ReplicaProgress::Replica* replica = find(target);
             replica == nullptr || !replica->connected) {
    return absl::FailedPreconditionError(absl::StrCat(
        "replica '", target, "' is in sync but not connected to the leader; check that it runs"));
  }

  // From here on new calls answer NotLeader (and retry elsewhere); what was
  // admitted finishes, and its effects are released once the in-sync set,
  // which includes the target, holds it.
  handing_over_ = true;
  const absl::Time started = absl::Now();
  const absl::Duration timeout = std::max(absl::Seconds(5), 3 * options_.ha.sync_timeout);
  log::Info("switchover: handing over; admitting no new calls")
      .With("to", target)
      .With("epoch", election_->epoch());
  uint64_t held = 0;
  while (true) {
    if (!election_->IsLeader()) {
      handing_over_ = false;
      return absl::UnavailableError("the leader lost its lease during the switchover");
    }
    const uint64_t written = hook_->last().index;
    held = 0;
    for (const auto& replica : progress_.Snapshot()) {
      if (replica.id == target) held = replica.connected ? replica.durable_index : 0;
    }
    if (held >= written && !gate_->waiting().has_value()) break;
    if (absl::Now() - started >= timeout) {
      handing_over_ = false;
      log::Warn("switchover refused: the target did not catch up; serving on")
          .With("to", target)
          .With("held", static_cast<int64_t>(held))
          .With("written", static_cast<int64_t>(written));
      return absl::FailedPreconditionError(
          absl::StrCat("replica '", target, "' did not catch up within ",
                       absl::FormatDuration(timeout), " (it holds index ", held, " of ", written,
                       "); it may be stopped or overloaded; the leader serves on"));
    }
    std::this_thread::sleep_for(absl::ToChronoMilliseconds(kCatchUpPoll));
  }

  // Only the target may campaign now: the members and this leader (which
  // holds everything too) stand aside until the window ends.
  ha::InSyncSet set;
  set.replicas = in_sync_;
  set.index = held;
  set.successor = target;
  set.successor_until = absl::Now() + SuccessorWindow();
  if (absl::Status written = election_->UpdateInSync(set); !written.ok()) {
    handing_over_ = false;
    return absl::UnavailableError(absl::StrCat("cannot name '", target,
                                               "' the successor in etcd: ", written.message(),
                                               "; the leader serves on, try again"));
  }
  Handover handover{me, target, election_->epoch(), held};
  log::Info("switchover: successor named; resigning")
      .With("to", target)
      .With("index", static_cast<int64_t>(held))
      .With("wait_ms", absl::ToInt64Milliseconds(absl::Now() - started));
  return handover;
}

void ReplicaRole::PromoteByForce(bool force,
                                 std::function<void(absl::StatusOr<ForcedPromotion>)> done) {
  RunOnRoleThread([this, force, done = std::move(done)](bool shutting_down) {
    if (shutting_down) {
      done(absl::UnavailableError("the replica is shutting down"));
      return;
    }
    done(ForcePromotion(force));
  });
}

absl::StatusOr<ForcedPromotion> ReplicaRole::ForcePromotion(bool force) {
  const std::string& me = options_.ha.replica_id;
  if (promoted_.load() || follower_ == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("replica '", me, "' already leads"));
  }
  absl::StatusOr<std::optional<ha::InSyncSet>> current = election_->ReadInSync();
  if (!current.ok()) return current.status();
  const ha::LogPosition applied = follower_->position();
  std::vector<std::string> before;
  std::string last_leader;
  if (current->has_value()) {
    before = (*current)->replicas;
    last_leader = (*current)->leader;
  }
  const std::string holds = absl::StrCat("'", me, "' holds the log up to index ", applied.index,
                                         " (epoch ", applied.epoch, ")");
  if (!force) {
    if (current->has_value() && (*current)->MayCampaign(me, absl::Now())) {
      return absl::FailedPreconditionError(absl::StrCat(
          holds,
          " and is in sync: it needs no force and campaigns by itself once the leader's "
          "lease ends"));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to promote '", me, "' without --force: it is not in sync. ", holds,
        "; the last leader '", last_leader.empty() ? std::string("?") : last_leader,
        "' and the in-sync followers (", SetText(before),
        ") may hold writes acknowledged after that, and promoting it loses them for good. If "
        "any of them can come back, start it instead; if they are gone, repeat with --force"));
  }
  // The record first: once the set names this replica it may win at once,
  // and no leader may ever serve without the record (decision 212).
  Json record = Json::object();
  record["replica"] = me;
  record["applied_epoch"] = applied.epoch;
  record["applied_index"] = applied.index;
  record["last_leader"] = last_leader;
  record["in_sync_before"] = before;
  record["unix_ms"] = absl::ToUnixMillis(absl::Now());
  const std::string text = DumpJson(record);
  absl::StatusOr<ha::KvPutResult> put =
      kv_->PutIf({}, election_->keys().lost_writes, text, 0, absl::Now() + absl::Seconds(2));
  if (!put.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot record the promotion in etcd: ", put.status().message()));
  }
  ha::InSyncSet set;
  if (current->has_value()) {
    set.epoch = (*current)->epoch;
    set.leader = (*current)->leader;
  }
  set.replicas = {me};
  set.index = applied.index;
  set.successor = me;
  set.successor_until = absl::Now() + SuccessorWindow();
  std::optional<ha::InSyncSet> read;
  if (absl::Status written = ha::WriteInSyncIfNoLeader(*kv_, election_->keys(), set, &read,
                                                       absl::Now() + absl::Seconds(2));
      !written.ok()) {
    return written;
  }
  may_have_lost_writes_ = true;
  forced_here_ = true;
  lost_writes_ = text;
  if (options_.metrics != nullptr) options_.metrics->SetMayHaveLostWrites(true);
  log::Error("promoted by force: writes acknowledged after this replica's position may be lost")
      .With("replica", me)
      .With("applied_epoch", static_cast<int64_t>(applied.epoch))
      .With("applied_index", static_cast<int64_t>(applied.index))
      .With("last_leader", last_leader)
      .With("in_sync_before", SetText(before));
  return ForcedPromotion{applied, before};
}

void ReplicaRole::ReadLostWritesRecord() {
  absl::StatusOr<ha::KvRead> read =
      kv_->Get(election_->keys().lost_writes, absl::Now() + absl::Seconds(1));
  if (!read.ok()) {
    log::Warn("cannot read the may-have-lost-writes record").With("error", read.status());
    return;
  }
  if (!read->entry.has_value()) return;
  may_have_lost_writes_ = true;
  lost_writes_ = read->entry->value;
  if (options_.metrics != nullptr) options_.metrics->SetMayHaveLostWrites(true);
}

}  // namespace taskboard::server
