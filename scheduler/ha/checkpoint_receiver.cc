#include "scheduler/ha/checkpoint_receiver.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace taskboard::ha {
namespace {

namespace fs = std::filesystem;

absl::Status Errno(absl::string_view what) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

absl::Status FsyncPath(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno(absl::StrCat("cannot open ", path, " to sync it"));
  const int synced = fsync(fd);
  close(fd);
  if (synced != 0) return Errno(absl::StrCat("cannot sync ", path));
  return absl::OkStatus();
}

std::string Parent(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

absl::Status RemoveAll(const std::string& path) {
  std::error_code error;
  fs::remove_all(path, error);
  if (error)
    return absl::InternalError(absl::StrCat("cannot remove ", path, ": ", error.message()));
  return absl::OkStatus();
}

absl::Status Rename(const std::string& from, const std::string& to) {
  if (rename(from.c_str(), to.c_str()) != 0) {
    return Errno(absl::StrCat("cannot rename ", from, " to ", to));
  }
  return absl::OkStatus();
}

}  // namespace

CheckpointReceiver::CheckpointReceiver(std::string data_dir)
    : data_dir_(std::move(data_dir)), incoming_(absl::StrCat(data_dir_, ".incoming")) {}

CheckpointReceiver::~CheckpointReceiver() {
  if (fd_ >= 0) close(fd_);
}

absl::Status CheckpointReceiver::Begin(LogPosition position,
                                       std::vector<CheckpointInfo::File> files) {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  current_.clear();
  files_.clear();
  position_ = position;
  for (const CheckpointInfo::File& file : files) {
    if (file.name.empty() || absl::StrContains(file.name, '/') || file.name == "." ||
        file.name == "..") {
      return absl::InvalidArgumentError(
          absl::StrCat("checkpoint file name '", file.name, "' is not a plain name"));
    }
    files_[file.name] = Receiving{file.size, 0, false};
  }
  if (absl::Status removed = RemoveAll(incoming_); !removed.ok()) return removed;
  std::error_code error;
  fs::create_directories(incoming_, error);
  if (error) {
    return absl::InternalError(absl::StrCat("cannot create ", incoming_, ": ", error.message()));
  }
  return absl::OkStatus();
}

absl::Status CheckpointReceiver::Write(absl::string_view name, uint64_t offset,
                                       absl::string_view data) {
  auto it = files_.find(name);
  if (it == files_.end() || it->second.done) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint chunk for '", name, "', which is ",
                     it == files_.end() ? "not in the manifest" : "complete already"));
  }
  if (current_ != name) {
    if (!current_.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("checkpoint chunk for '", name, "' while '", current_, "' is not ended"));
    }
    const std::string path = absl::StrCat(incoming_, "/", name);
    fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) return Errno(absl::StrCat("cannot create ", path));
    current_ = std::string(name);
  }
  Receiving& file = it->second;
  if (offset != file.received) {
    return absl::InvalidArgumentError(absl::StrCat("checkpoint chunk for '", name, "' at offset ",
                                                   offset, ", expected ", file.received));
  }
  for (size_t written = 0; written < data.size();) {
    const ssize_t n = write(fd_, data.data() + written, data.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno(absl::StrCat("cannot write ", incoming_, "/", name));
    }
    written += static_cast<size_t>(n);
  }
  digest_.Update(data);
  file.received += data.size();
  return absl::OkStatus();
}

absl::Status CheckpointReceiver::End(absl::string_view name, uint64_t size,
                                     absl::string_view sha256_hex) {
  auto it = files_.find(name);
  if (it == files_.end() || it->second.done) {
    return absl::InvalidArgumentError(
        absl::StrCat("end of checkpoint file '", name, "', which is not being received"));
  }
  Receiving& file = it->second;
  if (current_ != name) {  // an empty file has no chunks
    if (absl::Status opened = Write(name, 0, ""); !opened.ok()) return opened;
  }
  const std::string digest = digest_.FinishHex();
  if (absl::Status closed = CloseCurrent(); !closed.ok()) return closed;
  if (size != file.received || size != file.size) {
    return absl::DataLossError(absl::StrCat("checkpoint file '", name, "': received ",
                                            file.received, " bytes, the leader sent ", size,
                                            " (manifest: ", file.size, ")"));
  }
  if (digest != sha256_hex) {
    return absl::DataLossError(absl::StrCat("checkpoint file '", name, "': SHA-256 ", digest,
                                            " differs from the leader's ", sha256_hex));
  }
  file.done = true;
  return absl::OkStatus();
}

absl::Status CheckpointReceiver::CloseCurrent() {
  const std::string path = absl::StrCat(incoming_, "/", current_);
  current_.clear();
  const bool synced = fsync(fd_) == 0;
  close(fd_);
  fd_ = -1;
  if (!synced) return Errno(absl::StrCat("cannot sync ", path));
  return absl::OkStatus();
}

absl::StatusOr<LogPosition> CheckpointReceiver::Install() {
  for (const auto& [name, file] : files_) {
    if (!file.done) {
      return absl::FailedPreconditionError(
          absl::StrCat("checkpoint file '", name, "' was not received completely"));
    }
  }
  if (absl::Status synced = FsyncPath(incoming_); !synced.ok()) return synced;
  const std::string old = absl::StrCat(data_dir_, ".old");
  if (absl::Status removed = RemoveAll(old); !removed.ok()) return removed;
  if (fs::exists(data_dir_)) {
    if (absl::Status moved = Rename(data_dir_, old); !moved.ok()) return moved;
  }
  if (absl::Status moved = Rename(incoming_, data_dir_); !moved.ok()) return moved;
  if (absl::Status synced = FsyncPath(Parent(data_dir_)); !synced.ok()) return synced;
  if (absl::Status removed = RemoveAll(old); !removed.ok()) return removed;
  return position_;
}

absl::Status RecoverCheckpointInstall(const std::string& data_dir) {
  const std::string old = absl::StrCat(data_dir, ".old");
  if (!fs::exists(old)) return absl::OkStatus();
  if (!fs::exists(data_dir)) {
    if (absl::Status moved = Rename(old, data_dir); !moved.ok()) return moved;
    return FsyncPath(Parent(data_dir));
  }
  return RemoveAll(old);
}

}  // namespace taskboard::ha
