#ifndef TASKBOARD_TESTS_HA_ELECTION_FIXTURE_H_
#define TASKBOARD_TESTS_HA_ELECTION_FIXTURE_H_

// A real 3-member etcd cluster and three election candidates, each in a
// process of its own, for the election's integration tests. Times come from
// the LeaseClock (CLOCK_BOOTTIME), which the candidates print in the same
// units, so a kill in the test and an election in a candidate compare
// directly.

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/ha/lease_clock.h"
#include "tests/ha/candidate_process.h"
#include "tests/testing/etcd_cluster.h"

namespace taskboard::testing {

class ElectionFixture : public ::testing::Test {
 protected:
  static constexpr int kCandidates = 3;

  // The candidates' lease TTL: TASKBOARD_HA_TTL_MS, default 3000 (the flag's
  // planned default).
  static int64_t TtlMs() {
    const char* env = std::getenv("TASKBOARD_HA_TTL_MS");
    int64_t ms = 0;
    return env != nullptr && absl::SimpleAtoi(env, &ms) && ms > 0 ? ms : 3000;
  }
  static absl::Duration Ttl() { return absl::Milliseconds(TtlMs()); }
  static int64_t NowNs() { return absl::ToInt64Nanoseconds(ha::DefaultLeaseClock()->Now()); }

  void SetUp() override {
    absl::StatusOr<std::unique_ptr<EtcdCluster>> etcd = EtcdCluster::Start();
    ASSERT_TRUE(etcd.ok()) << etcd.status();
    etcd_ = *std::move(etcd);
    for (int i = 0; i < kCandidates; ++i) {
      candidates_.emplace_back();
      generations_.push_back(0);
      StartCandidate(i);
    }
  }

  void StartCandidate(int i) {
    absl::StatusOr<std::unique_ptr<CandidateProcess>> candidate =
        CandidateProcess::Start(TASKBOARD_HA_CANDIDATE, etcd_->dir(), absl::StrCat("c", i),
                                generations_[i]++, etcd_->endpoints(), "test", TtlMs());
    ASSERT_TRUE(candidate.ok()) << candidate.status();
    candidates_[i] = *std::move(candidate);
  }

  // The candidate that printed `elected` with an epoch above `above`, first
  // found within `timeout`; nullopt otherwise.
  std::optional<std::pair<int, CandidateLine>> WaitForLeader(int64_t above,
                                                             absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (absl::Now() < deadline) {
      for (int i = 0; i < kCandidates; ++i) {
        if (candidates_[i] == nullptr) continue;
        for (const CandidateLine& line : candidates_[i]->Lines("elected")) {
          if (line.epoch > above) return std::make_pair(i, line);
        }
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
    return std::nullopt;
  }

  // Every `elected` and `deposed` line of every candidate process started so
  // far (current processes only; a killed one's log stays on disk).
  std::vector<CandidateLine> AllLines(const std::string& kind) const {
    std::vector<CandidateLine> all;
    for (const std::unique_ptr<CandidateProcess>& candidate : candidates_) {
      if (candidate == nullptr) continue;
      for (CandidateLine& line : candidate->Lines(kind)) all.push_back(std::move(line));
    }
    return all;
  }

  std::string Logs() const {
    std::string logs = etcd_->Logs();
    for (const std::unique_ptr<CandidateProcess>& candidate : candidates_) {
      if (candidate != nullptr) absl::StrAppend(&logs, candidate->Log());
    }
    return logs;
  }

  std::unique_ptr<EtcdCluster> etcd_;
  std::vector<std::unique_ptr<CandidateProcess>> candidates_;
  std::vector<int> generations_;
};

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_HA_ELECTION_FIXTURE_H_
