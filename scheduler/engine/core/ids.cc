#include "scheduler/engine/core/ids.h"

#include "absl/strings/str_format.h"

namespace taskboard::engine {
namespace {

constexpr char kCrockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

void AppendBase32(uint64_t value, int digits, std::string& out) {
  for (int i = digits - 1; i >= 0; --i) out.push_back(kCrockford[(value >> (5 * i)) & 31]);
}

}  // namespace

std::string NewRunId(int64_t now_ms, absl::BitGen& rng) {
  std::string id = "run-";
  AppendBase32(static_cast<uint64_t>(now_ms), 10, id);
  AppendBase32(absl::Uniform<uint64_t>(rng), 8, id);
  return id;
}

std::string NewLeaseId(absl::BitGen& rng) {
  return absl::StrFormat("l-%016x", absl::Uniform<uint64_t>(rng));
}

}  // namespace taskboard::engine
