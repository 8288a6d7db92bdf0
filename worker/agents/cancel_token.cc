#include "worker/agents/cancel_token.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <utility>

namespace taskboard::worker {

CancelToken::CancelToken() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

CancelToken::~CancelToken() {
  if (fd_ >= 0) close(fd_);
}

bool CancelToken::Cancel(std::string reason) {
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_.load(std::memory_order_relaxed)) return false;
    reason_ = std::move(reason);
    cancelled_.store(true, std::memory_order_release);
  }
  if (fd_ >= 0) {
    const uint64_t one = 1;
    // Cannot fail short of an overflow after 2^64 - 1 cancels; nothing to do.
    [[maybe_unused]] ssize_t written = write(fd_, &one, sizeof(one));
  }
  return true;
}

std::string CancelToken::reason() const {
  absl::MutexLock lock(&mu_);
  return reason_;
}

}  // namespace taskboard::worker
