#include "worker/base/inherited_children.h"

#include <sys/prctl.h>

#include <atomic>
#include <cerrno>
#include <system_error>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "worker/reaper/process_tree.h"

namespace taskboard::worker {
namespace {

std::atomic<bool> is_subreaper{false};

// The children this process spawned and has not reaped. A count, not a set:
// a pid reaped on one thread can be reused by a spawn on another before the
// first thread forgets it.
struct OwnChildren {
  absl::Mutex mutex;
  absl::flat_hash_map<pid_t, int> pids ABSL_GUARDED_BY(mutex);
};

OwnChildren& Own() {
  static OwnChildren* own = new OwnChildren;  // never destroyed: spawns may run at exit
  return *own;
}

}  // namespace

absl::Status BecomeChildSubreaper() {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot become a child subreaper (PR_SET_CHILD_SUBREAPER): ",
                     std::generic_category().message(errno)));
  }
  is_subreaper.store(true);
  return absl::OkStatus();
}

pid_t SpawnOwnChild(absl::FunctionRef<pid_t()> spawn) {
  OwnChildren& own = Own();
  absl::MutexLock lock(&own.mutex);
  const pid_t pid = spawn();
  if (pid > 0) ++own.pids[pid];
  return pid;
}

void ForgetOwnChild(pid_t pid) {
  OwnChildren& own = Own();
  absl::MutexLock lock(&own.mutex);
  auto it = own.pids.find(pid);
  if (it != own.pids.end() && --it->second == 0) own.pids.erase(it);
}

int KillInheritedChildren(absl::Duration timeout) {
  if (!is_subreaper.load()) return 0;
  // One sweep at a time: two would wait for the same pids.
  static absl::Mutex* sweeping = new absl::Mutex;
  absl::MutexLock sweep(sweeping);
  OwnChildren& own = Own();
  int reaped = 0;
  KillAndReapChildren(
      [&own](pid_t pid) {
        // A child spawned after the scan read its parent is registered by
        // the time this runs (SpawnOwnChild holds the lock across both).
        absl::MutexLock lock(&own.mutex);
        return own.pids.contains(pid);
      },
      [&reaped](pid_t, int) { ++reaped; }, static_cast<int>(absl::ToInt64Milliseconds(timeout)));
  return reaped;
}

}  // namespace taskboard::worker
