#include "worker/base/task_cgroup.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"

namespace taskboard::worker {
namespace {

std::string ReadWhole(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool WriteWhole(const std::filesystem::path& path, absl::string_view text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

std::vector<pid_t> CgroupMembers(const std::filesystem::path& cgroup) {
  std::vector<pid_t> pids;
  for (absl::string_view line :
       absl::StrSplit(ReadWhole(cgroup / "cgroup.procs"), '\n', absl::SkipEmpty())) {
    int pid = 0;
    if (absl::SimpleAtoi(line, &pid) && pid > 0) pids.push_back(pid);
  }
  return pids;
}

bool Populated(const std::filesystem::path& cgroup) {
  for (absl::string_view line :
       absl::StrSplit(ReadWhole(cgroup / "cgroup.events"), '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "populated ")) return line != "populated 0";
  }
  return !CgroupMembers(cgroup).empty();
}

void SleepBriefly() { usleep(2'000); }

// The directory of this process's cgroup v2: "0::PATH" in /proc/self/cgroup,
// under the cgroup2 mount whose root (mountinfo field 4) PATH starts with.
absl::StatusOr<std::filesystem::path> OwnCgroupDirectory() {
  std::string own;
  for (absl::string_view line :
       absl::StrSplit(ReadWhole("/proc/self/cgroup"), '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "0::")) own = std::string(line.substr(3));
  }
  if (own.empty()) {
    return absl::FailedPreconditionError(
        "the worker is in no cgroup v2 (/proc/self/cgroup has no \"0::\" line)");
  }
  for (absl::string_view line :
       absl::StrSplit(ReadWhole("/proc/self/mountinfo"), '\n', absl::SkipEmpty())) {
    // ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS... - TYPE SOURCE SUPER_OPTIONS
    std::vector<std::string> halves = absl::StrSplit(line, absl::MaxSplits(" - ", 1));
    if (halves.size() != 2 || !absl::StartsWith(halves[1], "cgroup2 ")) continue;
    std::vector<std::string> fields = absl::StrSplit(halves[0], ' ');
    if (fields.size() < 5) continue;
    const std::string& root = fields[3];
    if (!absl::StartsWith(own, root)) continue;
    std::string below = own.substr(root == "/" ? 0 : root.size());
    while (!below.empty() && below.front() == '/') below.erase(0, 1);
    return std::filesystem::path(fields[4]) / below;
  }
  return absl::FailedPreconditionError(
      "no cgroup v2 hierarchy is mounted (/proc/self/mountinfo has no cgroup2 mount holding the "
      "worker's cgroup)");
}

absl::Mutex default_parent_mutex(absl::kConstInit);
std::filesystem::path* default_parent ABSL_GUARDED_BY(default_parent_mutex) = nullptr;

}  // namespace

void SetDefaultTaskCgroupParent(const std::filesystem::path& parent) {
  absl::MutexLock lock(&default_parent_mutex);
  delete default_parent;
  default_parent = new std::filesystem::path(parent);
}

std::filesystem::path DefaultTaskCgroupParent() {
  absl::MutexLock lock(&default_parent_mutex);
  return default_parent != nullptr ? *default_parent : std::filesystem::path();
}

absl::StatusOr<std::filesystem::path> DelegatedCgroup() {
  absl::StatusOr<std::filesystem::path> own = OwnCgroupDirectory();
  if (!own.ok()) return own.status();
  std::error_code ec;
  // Only the root of a hierarchy lacks cgroup.type; a cgroup namespace's
  // root (a container's own cgroup) has it.
  if (!std::filesystem::exists(*own / "cgroup.type", ec)) {
    return absl::FailedPreconditionError(
        absl::StrCat("the worker is in the root cgroup ", own->string(),
                     ", which is the whole machine's: run it in a cgroup delegated to it (systemd "
                     "Delegate=yes, or a container with a writable cgroup namespace)"));
  }
  if (access(own->c_str(), W_OK) != 0 || access((*own / "cgroup.procs").c_str(), W_OK) != 0) {
    return absl::FailedPreconditionError(absl::StrCat("the worker's cgroup ", own->string(),
                                                      " is not writable by it (not delegated)"));
  }
  const std::filesystem::path probe = *own / absl::StrCat("taskboard-probe-", getpid());
  if (mkdir(probe.c_str(), 0755) != 0 && errno != EEXIST) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot make a cgroup in ", own->string(), ": ", std::generic_category().message(errno)));
  }
  rmdir(probe.c_str());
  return *own;
}

absl::StatusOr<std::unique_ptr<TaskCgroup>> TaskCgroup::Create(
    const std::filesystem::path& parent) {
  static std::atomic<uint64_t> next{0};
  const std::filesystem::path path =
      parent / absl::StrCat("taskboard-", getpid(), "-", next.fetch_add(1));
  if (mkdir(path.c_str(), 0755) != 0) {
    return absl::InternalError(absl::StrCat("cannot make the task's cgroup ", path.string(), ": ",
                                            std::generic_category().message(errno)));
  }
  return std::unique_ptr<TaskCgroup>(new TaskCgroup(path));
}

TaskCgroup::~TaskCgroup() {
  if (removed_) return;
  KillAll();
  (void)Remove();
}

bool TaskCgroup::KillAll() {
  if (CgroupMembers(path_).empty()) return false;
  std::error_code ec;
  if (std::filesystem::exists(path_ / "cgroup.kill", ec) &&
      WriteWhole(path_ / "cgroup.kill", "1")) {
    return true;
  }
  // Before cgroup.kill: a member may fork between the read and the kill, so
  // read again until nothing is left (bounded: a fork bomb is not expected
  // to outpace SIGKILL for long).
  for (int round = 0; round < 1000; ++round) {
    const std::vector<pid_t> members = CgroupMembers(path_);
    if (members.empty()) break;
    for (pid_t pid : members) kill(pid, SIGKILL);
    SleepBriefly();
  }
  return true;
}

absl::Status TaskCgroup::Remove(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    if (!Populated(path_) && (rmdir(path_.c_str()) == 0 || errno == ENOENT)) {
      removed_ = true;
      return absl::OkStatus();
    }
    if (absl::Now() >= deadline) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the task's cgroup ", path_.string(), " is still busy after ",
          absl::FormatDuration(timeout), ": a process in it does not die (stuck in the kernel?)"));
    }
    SleepBriefly();
  }
}

}  // namespace taskboard::worker
