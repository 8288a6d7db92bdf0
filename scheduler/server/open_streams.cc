#include "scheduler/server/open_streams.h"

#include <utility>
#include <vector>

namespace taskboard::server {

uint64_t OpenStreams::Add(std::string authorization, std::string method, Closer close) {
  absl::MutexLock lock(&mu_);
  const uint64_t id = next_id_++;
  entries_.emplace(id, Entry{std::move(authorization), std::move(method), std::move(close)});
  return id;
}

void OpenStreams::Remove(uint64_t id) {
  absl::MutexLock lock(&mu_);
  entries_.erase(id);
}

int OpenStreams::CloseRevoked(const auth::Authenticator& authenticator) {
  std::vector<Closer> revoked;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = entries_.begin(); it != entries_.end();) {
      if (authenticator.Admit(it->second.authorization, it->second.method).ok()) {
        ++it;
        continue;
      }
      revoked.push_back(std::move(it->second.close));
      entries_.erase(it++);
    }
  }
  for (const Closer& close : revoked) {
    close("the token of this stream was revoked (the scheduler re-read its tokens file)");
  }
  return static_cast<int>(revoked.size());
}

size_t OpenStreams::size() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

}  // namespace taskboard::server
