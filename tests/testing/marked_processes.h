#ifndef TASKBOARD_TESTS_TESTING_MARKED_PROCESSES_H_
#define TASKBOARD_TESTS_TESTING_MARKED_PROCESSES_H_

// Processes found by a marker in their environment, for tests that check
// that nothing an agent started outlives its task: a process that called
// setsid or double-forked is in no process group the test knows, but it
// keeps the environment it was started with. Zombies have none, so a dead
// process never counts. Reads /proc (the tests run as the processes' user or
// as root).

#include <dirent.h>
#include <sys/types.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace taskboard::testing {

// /proc/<pid>/FILE, or "" when the process is gone or unreadable.
inline std::string ReadProcFile(pid_t pid, const std::string& file) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/", file), std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Every live process whose environment holds `entry` ("NAME=value") exactly.
inline std::vector<pid_t> ProcessesWithEnvironment(const std::string& entry) {
  std::vector<pid_t> found;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return found;
  while (const dirent* dirent = readdir(proc)) {
    char* end = nullptr;
    const long pid = strtol(dirent->d_name, &end, 10);
    if (end == dirent->d_name || *end != '\0') continue;
    for (absl::string_view var :
         absl::StrSplit(ReadProcFile(static_cast<pid_t>(pid), "environ"), '\0')) {
      if (var == entry) {
        found.push_back(static_cast<pid_t>(pid));
        break;
      }
    }
  }
  closedir(proc);
  return found;
}

// "pid (ppid P): command line" for each, for failure messages.
inline std::string DescribeProcesses(const std::vector<pid_t>& pids) {
  std::string text;
  for (pid_t pid : pids) {
    std::string cmdline = ReadProcFile(pid, "cmdline");
    for (char& c : cmdline) c = c == '\0' ? ' ' : c;
    const std::string stat = ReadProcFile(pid, "stat");
    const size_t paren = stat.rfind(')');
    absl::StrAppend(&text, "\n  ", pid, " (",
                    paren == std::string::npos ? "?" : stat.substr(paren + 2, 12), "): ", cmdline);
  }
  return text;
}

// Polls until no process holds `entry`, at most `timeout`; the ones left
// (empty: none survived).
inline std::vector<pid_t> WaitUntilNoProcessWithEnvironment(const std::string& entry,
                                                            absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    std::vector<pid_t> left = ProcessesWithEnvironment(entry);
    if (left.empty() || absl::Now() >= deadline) return left;
    absl::SleepFor(absl::Milliseconds(20));
  }
}

// Polls until at least `count` processes hold `entry`, at most `timeout`.
inline bool WaitForProcessesWithEnvironment(const std::string& entry, size_t count,
                                            absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (ProcessesWithEnvironment(entry).size() < count) {
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return true;
}

// The zombie children of `parent` still there after `timeout` (a zombie
// that its parent reaps soon does not count).
inline std::vector<pid_t> ZombieChildrenOf(pid_t parent,
                                           absl::Duration timeout = absl::Seconds(5)) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    std::vector<pid_t> zombies;
    DIR* proc = opendir("/proc");
    if (proc == nullptr) return zombies;
    while (const dirent* dirent = readdir(proc)) {
      char* end = nullptr;
      const long pid = strtol(dirent->d_name, &end, 10);
      if (end == dirent->d_name || *end != '\0') continue;
      const std::string stat = ReadProcFile(static_cast<pid_t>(pid), "stat");
      const size_t paren = stat.rfind(')');
      if (paren == std::string::npos) continue;
      char state = 0;
      int ppid = 0;
      if (sscanf(stat.c_str() + paren + 1, " %c %d", &state, &ppid) == 2 && ppid == parent &&
          state == 'Z') {
        zombies.push_back(static_cast<pid_t>(pid));
      }
    }
    closedir(proc);
    if (zombies.empty() || absl::Now() >= deadline) return zombies;
    absl::SleepFor(absl::Milliseconds(20));
  }
}

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_MARKED_PROCESSES_H_
