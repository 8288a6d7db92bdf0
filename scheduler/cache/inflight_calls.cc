#include "scheduler/cache/inflight_calls.h"

#include <algorithm>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"

namespace taskboard::cache {
namespace {

std::string RandomPrefix() {
  std::random_device device;
  const uint64_t bits = (static_cast<uint64_t>(device()) << 32) | device();
  return absl::StrCat("c", absl::Hex(bits, absl::kZeroPad16), "-");
}

}  // namespace

InflightCalls::InflightCalls() : prefix_(RandomPrefix()) {}

InflightCalls::InflightCalls(std::string call_id_prefix) : prefix_(std::move(call_id_prefix)) {}

std::string InflightCalls::NewCallId() { return absl::StrCat(prefix_, next_++); }

InflightCalls::JoinResult InflightCalls::Join(absl::string_view key, Caller caller,
                                              JoinOptions options) {
  if (auto it = by_key_.find(key); it != by_key_.end()) {
    Call& call = calls_[it->second];
    // An owner back in touch takes its call back (held or not: its new
    // stream may come before the old one is seen closed); a held call with
    // no owner goes to whoever says it is executing it.
    const bool takes_back =
        options.announce && (call.owner.worker_id.empty() ? call.held_until_ms > 0
                                                          : call.owner.lease_id == caller.lease_id);
    if (takes_back) {
      call.owner = std::move(caller);
      call.held_until_ms = 0;
      return {Role::kExecute, it->second};
    }
    call.waiters.push_back(std::move(caller));
    return {Role::kWait, it->second};
  }
  std::string call_id = NewCallId();
  Call& call = calls_[call_id];
  call.key = std::string(key);
  call.seq = next_;
  by_key_.emplace(call.key, call_id);
  if (!options.announce && options.recovery_hold_until_ms > 0) {
    call.held_until_ms = options.recovery_hold_until_ms;
    call.waiters.push_back(std::move(caller));
    return {Role::kWait, std::move(call_id)};
  }
  call.owner = std::move(caller);
  return {Role::kExecute, std::move(call_id)};
}

std::vector<Caller> InflightCalls::Completed(absl::string_view call_id) {
  auto it = calls_.find(call_id);
  if (it == calls_.end()) return {};
  std::vector<Caller> waiters(std::make_move_iterator(it->second.waiters.begin()),
                              std::make_move_iterator(it->second.waiters.end()));
  by_key_.erase(it->second.key);
  calls_.erase(it);
  return waiters;
}

std::optional<InflightCalls::Promotion> InflightCalls::Failed(absl::string_view call_id) {
  auto it = calls_.find(call_id);
  if (it == calls_.end()) return std::nullopt;
  Call call = std::move(it->second);
  calls_.erase(it);
  if (call.waiters.empty()) {
    by_key_.erase(call.key);
    return std::nullopt;
  }
  call.owner = std::move(call.waiters.front());
  call.waiters.pop_front();
  call.held_until_ms = 0;
  std::string new_id = NewCallId();
  call.seq = next_;
  by_key_[call.key] = new_id;
  Promotion promotion{call.owner, new_id};
  calls_.emplace(std::move(new_id), std::move(call));
  return promotion;
}

template <typename IsLost>
std::vector<InflightCalls::Promotion> InflightCalls::Lose(IsLost is_lost, int64_t hold_until_ms) {
  std::vector<std::pair<uint64_t, std::string>> orphaned;
  for (auto& [call_id, call] : calls_) {
    std::erase_if(call.waiters, is_lost);
    if (call.owner.worker_id.empty() || !is_lost(call.owner)) continue;
    if (hold_until_ms > 0) {
      call.held_until_ms = hold_until_ms;
    } else {
      orphaned.emplace_back(call.seq, call_id);
    }
  }
  return FailInStartOrder(std::move(orphaned));
}

std::vector<InflightCalls::Promotion> InflightCalls::WorkerLost(absl::string_view worker_id,
                                                                int64_t hold_until_ms) {
  return Lose([worker_id](const Caller& caller) { return caller.worker_id == worker_id; },
              hold_until_ms);
}

std::vector<InflightCalls::Promotion> InflightCalls::LeaseLost(absl::string_view lease_id) {
  // A lease that ended will not be announced again: no hold.
  return Lose([lease_id](const Caller& caller) { return caller.lease_id == lease_id; },
              /*hold_until_ms=*/0);
}

std::vector<InflightCalls::Promotion> InflightCalls::ReleaseHeld(int64_t now_ms) {
  std::vector<std::pair<uint64_t, std::string>> due;
  for (const auto& [call_id, call] : calls_) {
    if (call.held_until_ms > 0 && call.held_until_ms <= now_ms) due.emplace_back(call.seq, call_id);
  }
  return FailInStartOrder(std::move(due));
}

std::vector<InflightCalls::Promotion> InflightCalls::FailInStartOrder(
    std::vector<std::pair<uint64_t, std::string>> calls) {
  std::sort(calls.begin(), calls.end());
  std::vector<Promotion> promotions;
  for (const auto& [seq, call_id] : calls) {
    if (std::optional<Promotion> promotion = Failed(call_id)) {
      promotions.push_back(*std::move(promotion));
    }
  }
  return promotions;
}

std::optional<int64_t> InflightCalls::NextRelease() const {
  std::optional<int64_t> next;
  for (const auto& [call_id, call] : calls_) {
    if (call.held_until_ms > 0 && (!next || call.held_until_ms < *next)) next = call.held_until_ms;
  }
  return next;
}

bool InflightCalls::ForgetWaiter(absl::string_view worker_id, absl::string_view request_id) {
  for (auto& [call_id, call] : calls_) {
    auto it = std::find_if(call.waiters.begin(), call.waiters.end(), [&](const Caller& caller) {
      return caller.worker_id == worker_id && caller.request_id == request_id;
    });
    if (it != call.waiters.end()) {
      call.waiters.erase(it);
      return true;
    }
  }
  return false;
}

std::string InflightCalls::CallOfKey(absl::string_view key) const {
  auto it = by_key_.find(key);
  return it == by_key_.end() ? "" : it->second;
}

const Caller* InflightCalls::Owner(absl::string_view call_id) const {
  auto it = calls_.find(call_id);
  if (it == calls_.end() || it->second.owner.worker_id.empty()) return nullptr;
  return &it->second.owner;
}

bool InflightCalls::Unowned(absl::string_view call_id) const {
  auto it = calls_.find(call_id);
  return it != calls_.end() && it->second.owner.worker_id.empty();
}

int64_t InflightCalls::waiters() const {
  int64_t total = 0;
  for (const auto& [call_id, call] : calls_) total += static_cast<int64_t>(call.waiters.size());
  return total;
}

}  // namespace taskboard::cache
