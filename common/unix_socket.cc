#include "common/unix_socket.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace taskboard {
namespace {

std::string ErrnoText(int error) { return strerror(error); }

absl::StatusOr<sockaddr_un> UnixAddress(const std::string& path) {
  sockaddr_un address = {};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() > kMaxUnixSocketPath) {
    return absl::InvalidArgumentError(absl::StrCat("socket path '", path, "' must be 1 to ",
                                                   kMaxUnixSocketPath, " bytes long (it is ",
                                                   path.size(), "): use a shorter directory"));
  }
  memcpy(address.sun_path, path.data(), path.size());
  return address;
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) Reset(other.Release());
  return *this;
}

int UniqueFd::Release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void UniqueFd::Reset(int fd) {
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
}

absl::StatusOr<UniqueFd> ListenUnixSocket(const std::string& path, int backlog) {
  absl::StatusOr<sockaddr_un> address = UnixAddress(path);
  if (!address.ok()) return address.status();
  UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    return absl::InternalError(absl::StrCat("cannot create a socket: ", ErrnoText(errno)));
  }
  unlink(path.c_str());
  if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&*address), sizeof(*address)) != 0 ||
      listen(fd.get(), backlog) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot listen on socket '", path, "': ", ErrnoText(errno)));
  }
  return fd;
}

absl::StatusOr<UniqueFd> ConnectUnixSocket(const std::string& path) {
  absl::StatusOr<sockaddr_un> address = UnixAddress(path);
  if (!address.ok()) return address.status();
  UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    return absl::UnavailableError(absl::StrCat("cannot create a socket: ", ErrnoText(errno)));
  }
  int result;
  do {
    result = connect(fd.get(), reinterpret_cast<const sockaddr*>(&*address), sizeof(*address));
  } while (result != 0 && errno == EINTR);
  if (result != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot connect to socket '", path, "': ", ErrnoText(errno)));
  }
  return fd;
}

absl::Status WriteAll(int fd, absl::string_view data) {
  while (!data.empty()) {
    // MSG_NOSIGNAL: a peer that left is an error to report, not a SIGPIPE.
    const ssize_t written = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (written < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(absl::StrCat("cannot write to socket: ", ErrnoText(errno)));
    }
    data.remove_prefix(static_cast<size_t>(written));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<std::string>> LineReader::Next(absl::Duration timeout) {
  const absl::Time deadline =
      timeout == absl::InfiniteDuration() ? absl::InfiniteFuture() : absl::Now() + timeout;
  size_t scanned = 0;
  while (true) {
    const size_t newline = buffer_.find('\n', scanned);
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return line;
    }
    scanned = buffer_.size();
    if (buffer_.size() > max_line_bytes_) {
      return absl::ResourceExhaustedError(
          absl::StrCat("message longer than the limit of ", max_line_bytes_, " bytes"));
    }
    if (eof_) {
      if (buffer_.empty()) return std::nullopt;
      std::string line = std::move(buffer_);
      buffer_.clear();
      return line;
    }
    int wait_ms = -1;
    if (deadline != absl::InfiniteFuture()) {
      const absl::Duration left = deadline - absl::Now();
      if (left <= absl::ZeroDuration()) {
        return absl::DeadlineExceededError(
            absl::StrCat("no complete message within ", absl::FormatDuration(timeout)));
      }
      wait_ms = static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 60'000));
    }
    pollfd pfd = {fd_, POLLIN, 0};
    const int ready = poll(&pfd, 1, wait_ms);
    if (ready < 0 && errno != EINTR) {
      return absl::InternalError(absl::StrCat("cannot wait for socket data: ", ErrnoText(errno)));
    }
    if (ready <= 0) continue;
    char chunk[64 << 10];
    const ssize_t got = recv(fd_, chunk, sizeof(chunk), 0);
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      // A peer that reset the connection has ended the stream as far as
      // line framing is concerned.
      if (errno == ECONNRESET) {
        eof_ = true;
        continue;
      }
      return absl::InternalError(absl::StrCat("cannot read from socket: ", ErrnoText(errno)));
    }
    if (got == 0) {
      eof_ = true;
    } else {
      buffer_.append(chunk, static_cast<size_t>(got));
    }
  }
}

}  // namespace taskboard
