#include "scheduler/ha/follow_reactor.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace taskboard::ha {
namespace {

LogPosition FromProto(const v1::LogPosition& position) {
  return LogPosition{position.epoch(), position.index()};
}

}  // namespace

FollowReactor::FollowReactor(const LeaderReplicaServiceOptions& options,
                             LeaderReplicaService* service, ReplicaLog* log,
                             ReplicaProgress* progress)
    : options_(options),
      service_(service),
      log_(log),
      progress_(progress),
      registered_(service->Register(this)) {
  if (!registered_) {
    absl::MutexLock lock(&mu_);
    FinishLocked(
        grpc::Status(grpc::StatusCode::UNAVAILABLE, "this replica is no longer the leader"));
    return;
  }
  StartRead(&request_);
}

void FollowReactor::FinishWith(grpc::Status status) {
  absl::MutexLock lock(&mu_);
  FinishLocked(std::move(status));
}

void FollowReactor::FinishLocked(grpc::Status status) {
  if (finished_) return;
  if (writing_) {
    if (!finish_after_write_.has_value()) finish_after_write_ = std::move(status);
    return;
  }
  finished_ = true;
  Finish(std::move(status));
}

void FollowReactor::OnReadDone(bool ok) {
  if (!ok) {  // the follower closed its side, or the call is over
    FinishWith(grpc::Status::OK);
    return;
  }
  bool first;
  std::string replica_id;
  {
    absl::MutexLock lock(&mu_);
    first = replica_id_.empty();
    replica_id = replica_id_;
  }
  if (first) {
    if (!request_.has_hello() || request_.hello().replica_id().empty()) {
      FinishWith(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                              "a Follow stream starts with a hello naming the replica"));
      return;
    }
    OnHello(request_.hello());
  } else if (request_.has_ack()) {
    progress_->Acked(replica_id, request_.ack().durable_index());
  }
  {
    absl::MutexLock lock(&mu_);
    if (finished_ || finish_after_write_.has_value()) return;  // no more reads
  }
  StartRead(&request_);
}

void FollowReactor::OnHello(const v1::Hello& hello) {
  const LogPosition last = FromProto(hello.last());
  if (hello.highest_epoch_seen() > options_.epoch) {
    FinishWith(grpc::Status(
        grpc::StatusCode::FAILED_PRECONDITION,
        absl::StrCat("this leader's epoch ", options_.epoch, " is older than epoch ",
                     hello.highest_epoch_seen(), ", which the follower has seen: it is deposed")));
    return;
  }
  std::optional<std::string> checkpoint_reason;
  const std::vector<std::string> theirs(hello.column_families().begin(),
                                        hello.column_families().end());
  absl::StatusOr<uint64_t> next = log_->ResumeFrom(last);
  if (theirs != options_.column_families) {
    checkpoint_reason =
        absl::StrCat("column families differ (follower: ", absl::StrJoin(theirs, ","),
                     "; leader: ", absl::StrJoin(options_.column_families, ","), ")");
  } else if (!next.ok()) {
    checkpoint_reason = std::string(next.status().message());
  }
  {
    absl::MutexLock lock(&mu_);
    replica_id_ = hello.replica_id();
    response_.Clear();
    if (checkpoint_reason.has_value()) {
      response_.mutable_need_checkpoint()->set_reason(*checkpoint_reason);
      finish_after_write_ = grpc::Status::OK;
    } else {
      response_.mutable_start()->set_epoch(options_.epoch);
      response_.mutable_start()->set_next_index(*next);
      next_index_ = *next;
    }
    writing_ = true;
  }
  if (!checkpoint_reason.has_value()) {
    progress_->Connected(hello.replica_id(), last.index);
    // Outside the lock: a listener runs under the log's listener lock, then
    // takes this reactor's.
    listener_ = log_->AddListener([this] { Pump(); });
  }
  Write();
}

void FollowReactor::Write() { StartWrite(&response_); }

void FollowReactor::Pump() {
  {
    absl::MutexLock lock(&mu_);
    if (writing_ || finished_ || !streaming_ || finish_after_write_.has_value()) return;
    absl::StatusOr<std::vector<LogEntry>> entries =
        log_->Read(next_index_, options_.max_entries_per_message, options_.max_bytes_per_message);
    response_.Clear();
    if (!entries.ok()) {
      // The follower fell behind what the log keeps while it streamed.
      response_.mutable_need_checkpoint()->set_reason(std::string(entries.status().message()));
      finish_after_write_ = grpc::Status::OK;
    } else if (entries->empty()) {
      return;
    } else {
      v1::Entries* out = response_.mutable_entries();
      for (const LogEntry& entry : *entries) {
        v1::LogEntry* sent = out->add_entries();
        sent->mutable_position()->set_epoch(entry.position.epoch);
        sent->mutable_position()->set_index(entry.position.index);
        sent->set_batch(*entry.batch);
        sent->set_leader_unix_ms(entry.leader_unix_ms);
      }
      out->set_leader_last_index(log_->last().index);
      next_index_ = entries->back().position.index + 1;
    }
    writing_ = true;
  }
  Write();
}

void FollowReactor::OnWriteDone(bool ok) {
  {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    // The first write is the answer to the hello: entries may follow.
    if (ok && !finish_after_write_.has_value()) streaming_ = true;
    if (!ok) {
      FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "the follower went away"));
      return;
    }
    if (finish_after_write_.has_value()) {
      finished_ = true;
      Finish(*finish_after_write_);
      return;
    }
  }
  Pump();
}

void FollowReactor::OnCancel() {
  FinishWith(grpc::Status(grpc::StatusCode::CANCELLED, "the follower cancelled"));
}

void FollowReactor::OnDone() {
  if (listener_ != 0) log_->RemoveListener(listener_);
  std::string replica_id;
  {
    absl::MutexLock lock(&mu_);
    replica_id = replica_id_;
  }
  if (listener_ != 0) progress_->Disconnected(replica_id);
  if (registered_) service_->Unregister(this);
  delete this;
}

}  // namespace taskboard::ha
