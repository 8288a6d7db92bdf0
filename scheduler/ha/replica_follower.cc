#include "scheduler/ha/replica_follower.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/log/log.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/support/channel_arguments.h"
#include "scheduler/ha/checkpoint_receiver.h"

namespace taskboard::ha {
namespace {

absl::Status FromGrpc(const grpc::Status& status, absl::string_view what) {
  if (status.ok())
    return absl::UnavailableError(absl::StrCat(what, ": the leader ended the stream"));
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat(what, ": ", status.error_message()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ReplicaFollower>> ReplicaFollower::Start(
    ReplicaFollowerOptions options) {
  if (absl::Status recovered = RecoverCheckpointInstall(options.data_dir); !recovered.ok()) {
    return recovered;
  }
  std::unique_ptr<ReplicaFollower> follower(new ReplicaFollower(std::move(options)));
  if (absl::Status opened = follower->OpenDb(); !opened.ok()) return opened;
  follower->thread_ = std::thread([follower = follower.get()] { follower->Run(); });
  return follower;
}

ReplicaFollower::ReplicaFollower(ReplicaFollowerOptions options) : options_(std::move(options)) {}

ReplicaFollower::~ReplicaFollower() { Stop(); }

absl::Status ReplicaFollower::OpenDb() {
  absl::StatusOr<std::unique_ptr<ReplicaDb>> db =
      ReplicaDb::Open(ReplicaDbOptions{options_.data_dir, options_.fsync});
  if (!db.ok()) return db.status();
  absl::StatusOr<std::unique_ptr<FollowerApplier>> applier = FollowerApplier::Create(db->get());
  if (!applier.ok()) return applier.status();
  db_ = *std::move(db);
  applier_ = *std::move(applier);
  SetPosition(applier_->position());
  return absl::OkStatus();
}

void ReplicaFollower::Follow(const std::string& address, uint64_t epoch) {
  uint64_t floor = epoch_floor_.load();
  while (epoch > floor && !epoch_floor_.compare_exchange_weak(floor, epoch)) {
  }
  absl::MutexLock lock(&mu_);
  if (leader_ == address) return;
  leader_ = address;
  if (context_ != nullptr) context_->TryCancel();
}

void ReplicaFollower::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    if (context_ != nullptr) context_->TryCancel();
  }
  if (thread_.joinable()) thread_.join();
  // What was applied is durable before a promotion opens the directory as
  // the leader's store (with `wal` each group was written, not synced).
  if (db_ != nullptr) {
    if (absl::Status synced = db_->Sync(); !synced.ok()) {
      log::Error("cannot sync the replica's store").With("error", synced.message());
    }
  }
  applier_.reset();
  db_.reset();
}

LogPosition ReplicaFollower::position() const {
  absl::MutexLock lock(&mu_);
  return position_;
}

absl::Status ReplicaFollower::last_error() const {
  absl::MutexLock lock(&mu_);
  return last_error_;
}

void ReplicaFollower::SetPosition(LogPosition position) {
  absl::MutexLock lock(&mu_);
  position_ = position;
}

std::shared_ptr<grpc::Channel> ReplicaFollower::ChannelTo(const std::string& address) {
  absl::MutexLock lock(&mu_);
  if (channel_ == nullptr || channel_address_ != address) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(options_.max_message_bytes);
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    channel_ = grpc::CreateCustomChannel(
        address,
        options_.credentials != nullptr ? options_.credentials : grpc::InsecureChannelCredentials(),
        args);
    channel_address_ = address;
  }
  return channel_;
}

std::shared_ptr<grpc::ClientContext> ReplicaFollower::NewContext() {
  absl::MutexLock lock(&mu_);
  if (stopping_) return nullptr;
  context_ = std::make_shared<grpc::ClientContext>();
  if (!options_.token.empty()) {
    context_->AddMetadata("authorization", absl::StrCat("Bearer ", options_.token));
  }
  return context_;
}

void ReplicaFollower::Run() {
  // A follower retries every retry_interval while its leader is away (a
  // failover, a restart); one line per attempt would bury the log, so a
  // failure is logged when it is new and then once per kRepeatLogInterval
  // with the count of attempts since.
  constexpr absl::Duration kRepeatLogInterval = absl::Seconds(30);
  std::string logged_error;
  absl::Time logged_at = absl::InfinitePast();
  int attempts_since_logged = 0;
  while (true) {
    std::string address;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]()
                       ABSL_SHARED_LOCKS_REQUIRED(mu_) { return stopping_ || !leader_.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) return;
      address = leader_;
    }
    bool bootstrap = false;
    absl::Status status = db_ == nullptr ? OpenDb() : absl::OkStatus();
    if (status.ok()) status = FollowOnce(address, &bootstrap);
    if (bootstrap) status = Bootstrap(address);
    {
      absl::MutexLock lock(&mu_);
      last_error_ = status;
      if (stopping_) return;
    }
    if (bootstrap && status.ok()) continue;  // follow from the checkpoint at once
    ++attempts_since_logged;
    const std::string error = absl::StrCat(address, " ", status.ToString());
    const absl::Time now = absl::Now();
    if (error != logged_error || now - logged_at >= kRepeatLogInterval) {
      log::Warn("replication stream ended; reconnecting")
          .With("replica", options_.replica_id)
          .With("leader", address)
          .With("error", status)
          .With("attempts", attempts_since_logged);
      logged_error = error;
      logged_at = now;
      attempts_since_logged = 0;
    }
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), options_.retry_interval);
  }
}

absl::Status ReplicaFollower::FollowOnce(const std::string& address, bool* bootstrap) {
  const std::string what = absl::StrCat("following the leader at ", address);
  std::unique_ptr<v1::ReplicaService::Stub> stub = v1::ReplicaService::NewStub(ChannelTo(address));
  std::shared_ptr<grpc::ClientContext> context = NewContext();
  if (context == nullptr) return absl::CancelledError("stopping");
  std::unique_ptr<grpc::ClientReaderWriter<v1::FollowRequest, v1::FollowResponse>> stream =
      stub->Follow(context.get());

  applier_->ObserveEpoch(epoch_floor_.load());
  v1::FollowRequest hello_request;
  v1::Hello* hello = hello_request.mutable_hello();
  hello->set_replica_id(options_.replica_id);
  hello->mutable_last()->set_epoch(applier_->position().epoch);
  hello->mutable_last()->set_index(applier_->position().index);
  hello->set_highest_epoch_seen(applier_->highest_epoch_seen());
  for (const std::string& family : db_->ColumnFamilies()) hello->add_column_families(family);

  absl::Status local;  // why this side ended the stream
  v1::FollowResponse response;
  if (stream->Write(hello_request) && stream->Read(&response)) {
    if (response.has_need_checkpoint()) {
      log::Info("the leader asks for a checkpoint bootstrap")
          .With("replica", options_.replica_id)
          .With("reason", response.need_checkpoint().reason());
      *bootstrap = true;
    } else if (!response.has_start()) {
      local = absl::InternalError(absl::StrCat(what, ": the leader's first answer is not Start"));
    } else if (response.start().epoch() < applier_->highest_epoch_seen()) {
      local = absl::FailedPreconditionError(
          absl::StrCat(what, ": its epoch ", response.start().epoch(), " is older than epoch ",
                       applier_->highest_epoch_seen(), " seen already (a deposed leader)"));
    } else {
      applier_->ObserveEpoch(response.start().epoch());
      while (local.ok() && !*bootstrap && stream->Read(&response)) {
        if (response.has_need_checkpoint()) {
          *bootstrap = true;
          break;
        }
        leader_last_index_.store(response.entries().leader_last_index());
        std::vector<LogEntry> entries;
        entries.reserve(response.entries().entries_size());
        for (v1::LogEntry& entry : *response.mutable_entries()->mutable_entries()) {
          entries.push_back(
              LogEntry{LogPosition{entry.position().epoch(), entry.position().index()},
                       std::make_shared<const std::string>(std::move(*entry.mutable_batch())),
                       entry.leader_unix_ms()});
        }
        applier_->ObserveEpoch(epoch_floor_.load());
        absl::StatusOr<LogPosition> applied = applier_->Apply(entries);
        SetPosition(applier_->position());
        if (!applied.ok()) {
          local = absl::Status(applied.status().code(),
                               absl::StrCat(what, ": ", applied.status().message()));
          break;
        }
        v1::FollowRequest ack;
        ack.mutable_ack()->set_durable_index(applied->index);
        if (!stream->Write(ack)) {
          // The leader ended the stream; what it sent last (a checkpoint
          // request) is still to be read, and Finish would wait for it
          // forever: read to the end. Entries read here are not applied
          // (they could not be acknowledged); the next stream resends them.
          while (stream->Read(&response)) {
            if (response.has_need_checkpoint()) *bootstrap = true;
          }
          break;
        }
      }
    }
  }
  // Leaving on this side's account: the leader would stream on.
  if (!local.ok() || *bootstrap) context->TryCancel();
  const grpc::Status finished = stream->Finish();
  if (!local.ok()) return local;
  if (*bootstrap) return absl::OkStatus();
  return FromGrpc(finished, what);
}

absl::Status ReplicaFollower::Bootstrap(const std::string& address) {
  const std::string what = absl::StrCat("fetching a checkpoint from ", address);
  std::unique_ptr<v1::ReplicaService::Stub> stub = v1::ReplicaService::NewStub(ChannelTo(address));
  std::shared_ptr<grpc::ClientContext> context = NewContext();
  if (context == nullptr) return absl::CancelledError("stopping");
  v1::FetchCheckpointRequest request;
  request.set_replica_id(options_.replica_id);
  std::unique_ptr<grpc::ClientReader<v1::CheckpointChunk>> reader =
      stub->FetchCheckpoint(context.get(), request);

  CheckpointReceiver receiver(options_.data_dir);
  absl::Status status;
  bool manifest = false;
  v1::CheckpointChunk chunk;
  while (status.ok() && reader->Read(&chunk)) {
    if (chunk.has_manifest()) {
      std::vector<CheckpointInfo::File> files;
      for (const v1::CheckpointFile& file : chunk.manifest().files()) {
        files.push_back({file.name(), file.size()});
      }
      status = receiver.Begin(
          LogPosition{chunk.manifest().position().epoch(), chunk.manifest().position().index()},
          std::move(files));
      manifest = true;
    } else if (!manifest) {
      status = absl::InternalError("the checkpoint stream did not start with its manifest");
    } else if (chunk.has_data()) {
      status = receiver.Write(chunk.data().name(), chunk.data().offset(), chunk.data().data());
    } else if (chunk.has_end()) {
      status = receiver.End(chunk.end().name(), chunk.end().size(), chunk.end().sha256());
    }
  }
  if (!status.ok()) context->TryCancel();
  const grpc::Status finished = reader->Finish();
  if (status.ok() && !finished.ok()) status = FromGrpc(finished, what);
  if (status.ok() && !manifest)
    status = absl::UnavailableError(absl::StrCat(what, ": no manifest"));
  if (!status.ok()) {
    return absl::Status(status.code(), absl::StrCat(what, ": ", status.message()));
  }

  applier_.reset();
  db_.reset();
  absl::StatusOr<LogPosition> installed = receiver.Install();
  // The new database, or the old one if the install failed before the swap.
  if (absl::Status reopened = OpenDb(); !reopened.ok()) return reopened;
  if (!installed.ok()) return installed.status();
  checkpoint_installs_.fetch_add(1);
  log::Info("installed a checkpoint from the leader")
      .With("replica", options_.replica_id)
      .With("epoch", installed->epoch)
      .With("index", installed->index);
  return absl::OkStatus();
}

}  // namespace taskboard::ha
