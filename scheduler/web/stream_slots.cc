#include "scheduler/web/stream_slots.h"

#include "absl/strings/str_cat.h"

namespace taskboard::web {

absl::StatusOr<std::unique_ptr<StreamSlots::Slot>> StreamSlots::Acquire(const std::string& tenant) {
  absl::MutexLock lock(&mu_);
  auto found = per_tenant_.find(tenant);
  const int mine = found == per_tenant_.end() ? 0 : found->second;
  if (mine >= max_per_tenant_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        mine, " event streams are open for ",
        tenant.empty() ? std::string("this scheduler's callers")
                       : absl::StrCat("tenant '", tenant, "'"),
        ", the most --http-max-streams-per-tenant allows; close one (a browser tab following a "
        "run) or raise the flag"));
  }
  if (total_ >= max_total_) {
    return absl::ResourceExhaustedError(
        absl::StrCat(total_,
                     " event streams are open, the most --http-max-streams allows; try again "
                     "when one ends, or raise the flag"));
  }
  ++per_tenant_[tenant];
  ++total_;
  return std::unique_ptr<Slot>(new Slot(this, tenant));
}

void StreamSlots::Release(const std::string& tenant) {
  absl::MutexLock lock(&mu_);
  --total_;
  auto found = per_tenant_.find(tenant);
  if (found != per_tenant_.end() && --found->second <= 0) per_tenant_.erase(found);
}

int StreamSlots::open() const {
  absl::MutexLock lock(&mu_);
  return total_;
}

int StreamSlots::open_for(const std::string& tenant) const {
  absl::MutexLock lock(&mu_);
  auto found = per_tenant_.find(tenant);
  return found == per_tenant_.end() ? 0 : found->second;
}

}  // namespace taskboard::web
