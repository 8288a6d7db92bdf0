#include "scheduler/schedules/overlap_policy.h"

namespace taskboard::schedules {
namespace {

struct Named {
  OverlapPolicy policy;
  const char* name;
};
constexpr Named kNames[] = {
    {OverlapPolicy::kSkip, "skip"},
    {OverlapPolicy::kBufferOne, "buffer_one"},
    {OverlapPolicy::kBufferAll, "buffer_all"},
    {OverlapPolicy::kCancelOther, "cancel_other"},
    {OverlapPolicy::kAllowAll, "allow_all"},
};

}  // namespace

absl::string_view OverlapPolicyName(OverlapPolicy policy) {
  for (const Named& named : kNames) {
    if (named.policy == policy) return named.name;
  }
  return "";
}

std::optional<OverlapPolicy> OverlapPolicyFromName(absl::string_view name) {
  for (const Named& named : kNames) {
    if (name == named.name) return named.policy;
  }
  return std::nullopt;
}

}  // namespace taskboard::schedules
