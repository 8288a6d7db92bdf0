#ifndef TASKBOARD_TESTS_HA_CANDIDATE_PROCESS_H_
#define TASKBOARD_TESTS_HA_CANDIDATE_PROCESS_H_

// One ha_election_candidate process (election_candidate_main.cc) and what it
// printed: its election events with their LeaseClock times, parsed from its
// log, which each start of the process writes afresh.

#include <signal.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/child_process.h"

namespace taskboard::testing {

struct CandidateLine {
  std::string kind;  // "elected", "deposed", "observed", "gone"; "status", "fenced_write"
  int64_t epoch = 0;
  int64_t at_ns = 0;
  int64_t sent_ns = 0;     // elected: the winning Txn's send time
  std::string leader;      // observed
  std::string code;        // fenced_write
  bool is_leader = false;  // status
  std::string text;
};

inline std::optional<CandidateLine> ParseCandidateLine(const std::string& text) {
  CandidateLine line;
  line.text = text;
  std::vector<std::string> words = absl::StrSplit(text, ' ');
  if (words.empty()) return std::nullopt;
  if (words[0] == "status" || words[0] == "fenced_write") line.kind = words[0];
  for (const std::string& word : words) {
    std::pair<std::string, std::string> kv = absl::StrSplit(word, absl::MaxSplits('=', 1));
    if (kv.first == "event") line.kind = kv.second;
    if (kv.first == "epoch") (void)absl::SimpleAtoi(kv.second, &line.epoch);
    if (kv.first == "at_ns") (void)absl::SimpleAtoi(kv.second, &line.at_ns);
    if (kv.first == "sent_ns") (void)absl::SimpleAtoi(kv.second, &line.sent_ns);
    if (kv.first == "leader") line.leader = kv.second;
    if (kv.first == "code") line.code = kv.second;
    if (kv.first == "is_leader") line.is_leader = kv.second == "1";
  }
  if (line.kind.empty()) return std::nullopt;
  return line;
}

class CandidateProcess {
 public:
  static absl::StatusOr<std::unique_ptr<CandidateProcess>> Start(
      const std::string& binary, const std::string& dir, const std::string& id, int generation,
      const std::vector<std::string>& endpoints, const std::string& cluster, int64_t ttl_ms) {
    const std::string log = absl::StrCat(dir, "/", id, ".", generation, ".log");
    absl::StatusOr<std::unique_ptr<ChildProcess>> process =
        ChildProcess::Spawn({binary, absl::StrCat("--endpoints=", absl::StrJoin(endpoints, ",")),
                             absl::StrCat("--cluster=", cluster), absl::StrCat("--id=", id),
                             absl::StrCat("--ttl-ms=", ttl_ms)},
                            log);
    if (!process.ok()) return process.status();
    return std::unique_ptr<CandidateProcess>(new CandidateProcess(id, log, *std::move(process)));
  }

  const std::string& id() const { return id_; }
  ChildProcess& process() { return *process_; }
  void Signal(int sig) { process_->Signal(sig); }
  // SIGKILL and reap.
  void Kill() { process_->KillGroup(); }

  std::vector<CandidateLine> Lines() const {
    std::vector<CandidateLine> lines;
    std::ifstream in(log_);
    for (std::string text; std::getline(in, text);) {
      if (std::optional<CandidateLine> line = ParseCandidateLine(text)) lines.push_back(*line);
    }
    return lines;
  }
  std::vector<CandidateLine> Lines(const std::string& kind) const {
    std::vector<CandidateLine> found;
    for (CandidateLine& line : Lines()) {
      if (line.kind == kind) found.push_back(std::move(line));
    }
    return found;
  }

  // Polls the log (every 10 ms) for the first line of `kind` that satisfies
  // `accept`, at most `timeout`.
  std::optional<CandidateLine> WaitFor(
      const std::string& kind, absl::Duration timeout,
      const std::function<bool(const CandidateLine&)>& accept = nullptr) const {
    const absl::Time deadline = absl::Now() + timeout;
    while (true) {
      for (const CandidateLine& line : Lines(kind)) {
        if (accept == nullptr || accept(line)) return line;
      }
      if (absl::Now() >= deadline) return std::nullopt;
      absl::SleepFor(absl::Milliseconds(10));
    }
  }

  std::string Log() const {
    std::ifstream in(log_);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return absl::StrCat("  candidate ", id_, " (", log_, "):\n", all);
  }

 private:
  CandidateProcess(std::string id, std::string log, std::unique_ptr<ChildProcess> process)
      : id_(std::move(id)), log_(std::move(log)), process_(std::move(process)) {}

  std::string id_;
  std::string log_;
  std::unique_ptr<ChildProcess> process_;
};

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_HA_CANDIDATE_PROCESS_H_
