#include "worker/base/cancel_token.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <utility>

namespace taskboard::worker {

namespace {

void Signal(int fd) {
  if (fd < 0) return;
  const uint64_t one = 1;
  // Cannot fail short of an overflow after 2^64 - 1 cancels; nothing to do.
  [[maybe_unused]] ssize_t written = write(fd, &one, sizeof(one));
}

}  // namespace

CancelToken::CancelToken() = default;

CancelToken::~CancelToken() {
  if (const int fd = fd_.load(std::memory_order_relaxed); fd >= 0) close(fd);
}

int CancelToken::fd() const {
  if (const int fd = fd_.load(std::memory_order_acquire); fd != kNotMade) return fd;
  absl::MutexLock lock(&mu_);
  int fd = fd_.load(std::memory_order_relaxed);
  if (fd != kNotMade) return fd;
  fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  // Cancelled before anyone asked: readable from the start.
  if (cancelled_.load(std::memory_order_relaxed)) Signal(fd);
  fd_.store(fd, std::memory_order_release);
  return fd;
}

bool CancelToken::Cancel(std::string reason) {
  absl::MutexLock lock(&mu_);
  if (cancelled_.load(std::memory_order_relaxed)) return false;
  reason_ = std::move(reason);
  cancelled_.store(true, std::memory_order_release);
  Signal(fd_.load(std::memory_order_relaxed));  // a descriptor made later is signalled by fd()
  return true;
}

std::string CancelToken::reason() const {
  absl::MutexLock lock(&mu_);
  return reason_;
}

}  // namespace taskboard::worker
