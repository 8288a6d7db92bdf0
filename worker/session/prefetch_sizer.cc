#include "worker/session/prefetch_sizer.h"

#include <algorithm>
#include <cmath>

namespace taskboard::worker {
namespace {

// Weight of a new sample: about the last ten tasks count.
constexpr double kWeight = 0.1;
// Results in flight are at most the worker's places; more send times than
// this means acks are not coming back, and the oldest are not worth keeping.
constexpr size_t kMaxInFlight = 8192;

double Mix(double mean, double sample) {
  return mean < 0 ? sample : mean + kWeight * (sample - mean);
}

}  // namespace

PrefetchSizer::PrefetchSizer(int slots, int floor, int ceiling)
    : slots_(std::max(1, slots)),
      floor_(std::max(0, floor)),
      ceiling_(std::max(floor_, ceiling)),
      size_(floor_) {}

void PrefetchSizer::TaskRan(absl::Duration duration) {
  duration_us_ = Mix(duration_us_, std::max(0.0, absl::ToDoubleMicroseconds(duration)));
}

void PrefetchSizer::ResultSent(const std::string& lease_id, absl::Time now) {
  if (sent_.size() >= kMaxInFlight) sent_.clear();
  sent_.insert_or_assign(lease_id, now);
}

void PrefetchSizer::ResultAcked(const std::string& lease_id, absl::Time now) {
  auto it = sent_.find(lease_id);
  if (it == sent_.end()) return;
  round_trip_us_ = Mix(round_trip_us_, std::max(0.0, absl::ToDoubleMicroseconds(now - it->second)));
  sent_.erase(it);
}

int PrefetchSizer::Update() {
  if (duration_us_ < 0 || round_trip_us_ < 0) return size_;
  // A task shorter than a microsecond counts as one: the ceiling either way.
  const double wanted = slots_ * round_trip_us_ / std::max(duration_us_, 1.0);
  if (wanted > size_ && size_ < ceiling_) {
    int next = std::max(size_, 1);
    while (next < wanted && next < ceiling_) next *= 2;
    size_ = std::min(next, ceiling_);
  } else if (wanted * 4 < size_ && size_ > floor_) {
    size_ = std::max(size_ / 2, floor_);
  }
  return size_;
}

}  // namespace taskboard::worker
