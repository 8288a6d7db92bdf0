#include "scheduler/ha/checkpoint_reactor.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/log/log.h"
#include "common/sha256.h"

namespace taskboard::ha {
namespace {

grpc::Status ToGrpc(const absl::Status& status) {
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

// A directory name no other transfer of this process uses.
std::string FreshDir(const std::string& parent) {
  static std::atomic<uint64_t> next{0};
  return absl::StrCat(parent, "/checkpoint-", absl::ToUnixNanos(absl::Now()), "-", next++);
}

}  // namespace

CheckpointReactor::CheckpointReactor(CheckpointStreamOptions options, ReplicaLog* log,
                                     CheckpointSource* checkpoints)
    : options_(std::move(options)), log_(log), checkpoints_(checkpoints) {
  // Detached: Finish is its last use of the reactor, which OnDone deletes.
  std::thread([this] {
    const absl::Status status = Transfer();
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](bool* writing) { return !*writing; }, &writing_));
    }
    Finish(ToGrpc(status));
  }).detach();
}

absl::Status CheckpointReactor::Transfer() {
  // Pinned before the checkpoint: everything after what it will hold stays.
  const uint64_t pin =
      log_ != nullptr ? log_->Pin(log_->last().index + 1, absl::InfiniteFuture()) : 0;
  const std::string dir = FreshDir(options_.dir);
  absl::Status status = [&]() -> absl::Status {
    std::error_code error;
    std::filesystem::create_directories(options_.dir, error);
    absl::StatusOr<CheckpointInfo> info = checkpoints_->CreateCheckpoint(dir);
    if (!info.ok()) return info.status();
    log::Info("sending a checkpoint")
        .With("to", options_.recipient)
        .With("epoch", info->position.epoch)
        .With("index", info->position.index)
        .With("files", info->files.size());
    v1::CheckpointChunk manifest;
    v1::CheckpointManifest* out = manifest.mutable_manifest();
    out->mutable_position()->set_epoch(info->position.epoch);
    out->mutable_position()->set_index(info->position.index);
    for (const CheckpointInfo::File& file : info->files) {
      v1::CheckpointFile* listed = out->add_files();
      listed->set_name(file.name);
      listed->set_size(file.size);
    }
    if (absl::Status sent = Send(std::move(manifest)); !sent.ok()) return sent;
    for (const CheckpointInfo::File& file : info->files) {
      if (absl::Status sent = SendFile(dir, file.name); !sent.ok()) return sent;
    }
    return absl::OkStatus();
  }();
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  // The follower continues from the checkpoint's position soon; after that
  // the log may drop what it no longer needs.
  if (log_ != nullptr) log_->Repin(pin, absl::Now() + options_.pin);
  return status;
}

absl::Status CheckpointReactor::SendFile(const std::string& dir, const std::string& name) {
  const std::string path = absl::StrCat(dir, "/", name);
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InternalError(absl::StrCat("cannot read checkpoint file ", path));
  Sha256Stream digest;
  uint64_t offset = 0;
  std::string buffer(options_.chunk_bytes, '\0');
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const size_t n = static_cast<size_t>(in.gcount());
    if (n == 0) break;
    v1::CheckpointChunk chunk;
    v1::FileData* data = chunk.mutable_data();
    data->set_name(name);
    data->set_offset(offset);
    data->set_data(buffer.data(), n);
    digest.Update(absl::string_view(buffer.data(), n));
    offset += n;
    if (absl::Status sent = Send(std::move(chunk)); !sent.ok()) return sent;
  }
  if (in.bad()) return absl::InternalError(absl::StrCat("cannot read checkpoint file ", path));
  v1::CheckpointChunk end;
  end.mutable_end()->set_name(name);
  end.mutable_end()->set_size(offset);
  end.mutable_end()->set_sha256(digest.FinishHex());
  return Send(std::move(end));
}

absl::Status CheckpointReactor::Send(v1::CheckpointChunk chunk) {
  {
    absl::MutexLock lock(&mu_);
    auto ready = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return !writing_ || over_; };
    mu_.Await(absl::Condition(&ready));
    if (over_) return absl::CancelledError("the follower went away during the checkpoint");
    chunk_ = std::move(chunk);
    writing_ = true;
  }
  StartWrite(&chunk_);
  return absl::OkStatus();
}

void CheckpointReactor::OnWriteDone(bool ok) {
  absl::MutexLock lock(&mu_);
  writing_ = false;
  if (!ok) over_ = true;
}

void CheckpointReactor::OnDone() {
  if (options_.done) options_.done();
  delete this;
}

void CheckpointReactor::OnCancel() {
  absl::MutexLock lock(&mu_);
  over_ = true;
}

}  // namespace taskboard::ha
