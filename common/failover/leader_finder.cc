#include "common/failover/leader_finder.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace taskboard::failover {

LeaderFinder::LeaderFinder(std::vector<std::string> addresses, BackoffOptions backoff)
    : addresses_(std::move(addresses)), configured_(addresses_.size()), backoff_(backoff) {}

void LeaderFinder::Connected() {
  backoff_.Reset();
  redirects_ = 0;
  answers_.clear();
}

void LeaderFinder::Record(absl::string_view answer) {
  ++failed_attempts_;
  auto known = std::find_if(answers_.begin(), answers_.end(),
                            [&](const Answer& a) { return a.index == current_; });
  if (known != answers_.end()) {
    known->text = std::string(answer);
  } else {
    answers_.push_back({current_, std::string(answer)});
  }
}

absl::Duration LeaderFinder::NotLeader(absl::string_view leader, absl::string_view answer,
                                       absl::BitGenRef random) {
  auto found = std::find(addresses_.begin(), addresses_.end(), leader);
  if (found == addresses_.end()) {
    if (leader.size() > kMaxLeaderHintBytes) {
      return Unreachable(absl::StrCat(answer, "; its leader hint of ", leader.size(),
                                      " bytes is over ", kMaxLeaderHintBytes, " and not followed"),
                         random);
    }
    if (addresses_.size() - configured_ >= kMaxLearnedAddresses) {
      return Unreachable(absl::StrCat(answer, "; not followed: ", kMaxLearnedAddresses,
                                      " leaders were learned from hints already"),
                         random);
    }
  }
  Record(answer);
  if (found == addresses_.end()) {
    addresses_.emplace_back(leader);
    found = addresses_.end() - 1;
  }
  current_ = static_cast<size_t>(found - addresses_.begin());
  // One pass through every address on hints alone is a redirect; more is
  // replicas pointing at each other.
  if (++redirects_ <= addresses_.size()) return absl::ZeroDuration();
  const absl::Duration delay = backoff_.Next(random);
  waited_ += delay;
  return delay;
}

absl::Duration LeaderFinder::Unreachable(absl::string_view answer, absl::BitGenRef random) {
  Record(answer);
  redirects_ = 0;
  current_ = (current_ + 1) % addresses_.size();
  const absl::Duration delay = backoff_.Next(random);
  waited_ += delay;
  return delay;
}

std::string LeaderFinder::Tried() const {
  return absl::StrJoin(answers_, ", ", [&](std::string* out, const Answer& answer) {
    absl::StrAppend(out, addresses_[answer.index], " (", answer.text, ")");
  });
}

}  // namespace taskboard::failover
