#include "scheduler/audit/refusal_limiter.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace taskboard::audit {

void RefusalLimiter::Refill(Bucket& bucket, absl::Time now, double rate, double burst) {
  if (now > bucket.refilled) {
    bucket.tokens =
        std::min(burst, bucket.tokens + absl::ToDoubleSeconds(now - bucket.refilled) * rate);
    bucket.refilled = now;
  }
}

void RefusalLimiter::ForgetIdle(absl::Time now) {
  for (auto it = sources_.begin(); it != sources_.end();) {
    Refill(it->second, now, limits_.per_source_per_second, limits_.per_source_burst);
    if (it->second.tokens >= limits_.per_source_burst) {
      sources_.erase(it++);
    } else {
      ++it;
    }
  }
}

bool RefusalLimiter::Allow(absl::string_view source, absl::Time now) {
  absl::MutexLock lock(&mu_);
  if (!total_started_) {
    total_ = Bucket{limits_.total_burst, now};
    total_started_ = true;
  }
  Refill(total_, now, limits_.total_per_second, limits_.total_burst);
  auto it = sources_.find(source);
  if (it == sources_.end()) {
    // A full table of busy sources: the new one shares the total bucket only
    // after the idle ones are gone; none gone, it is not recorded.
    if (sources_.size() >= limits_.max_sources) {
      ForgetIdle(now);
      if (sources_.size() >= limits_.max_sources) return false;
    }
    it = sources_.emplace(std::string(source), Bucket{limits_.per_source_burst, now}).first;
  }
  Bucket& bucket = it->second;
  Refill(bucket, now, limits_.per_source_per_second, limits_.per_source_burst);
  if (bucket.tokens < 1 || total_.tokens < 1) return false;
  bucket.tokens -= 1;
  total_.tokens -= 1;
  return true;
}

std::string RefusalSource(absl::string_view tenant, bool token_known, absl::string_view peer) {
  if (token_known) return absl::StrCat("tenant:", tenant);
  // "ipv4:10.0.0.7:51234", "ipv6:[::1]:51234": the port changes per
  // connection, so a flood over new connections shares one bucket.
  const size_t colon = peer.rfind(':');
  const size_t first = peer.find(':');
  if (colon != absl::string_view::npos && colon != first) peer = peer.substr(0, colon);
  return absl::StrCat("peer:", peer);
}

}  // namespace taskboard::audit
