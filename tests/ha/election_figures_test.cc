// Failover time at the election layer: the leader candidate is SIGKILLed ten
// times (restarted as a follower each time); for each kill, the time from the
// kill to the moment a rival's winning Txn returned, and to the moment the
// rivals saw the old key deleted. Prints p50 and max with the TTL used
// (TASKBOARD_HA_TTL_MS, default 3000).

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tests/ha/election_fixture.h"

namespace taskboard::testing {
namespace {

using ElectionFiguresTest = ElectionFixture;

constexpr int kKills = 10;

absl::Duration Percentile(std::vector<absl::Duration> values, double p) {
  std::sort(values.begin(), values.end());
  const size_t rank = static_cast<size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[rank];
}

std::string Ms(absl::Duration d) { return absl::StrCat(absl::ToInt64Milliseconds(d), " ms"); }

TEST_F(ElectionFiguresTest, TenLeaderKills_FailoverP50AndMax) {
  std::optional<std::pair<int, CandidateLine>> leader = WaitForLeader(0, absl::Seconds(10));
  ASSERT_TRUE(leader.has_value()) << Logs();
  std::vector<absl::Duration> failover;
  std::vector<absl::Duration> key_gone;
  for (int kill = 0; kill < kKills; ++kill) {
    // A keepalive or two into the term, as a leader usually is.
    absl::SleepFor(absl::Milliseconds(700));
    const int victim = leader->first;
    const int64_t killed_ns = NowNs();
    candidates_[victim]->Kill();
    std::optional<std::pair<int, CandidateLine>> next =
        WaitForLeader(leader->second.epoch, Ttl() + absl::Seconds(10));
    ASSERT_TRUE(next.has_value()) << "kill " << kill << "\n" << Logs();
    failover.push_back(absl::Nanoseconds(next->second.at_ns - killed_ns));
    std::optional<CandidateLine> gone = candidates_[next->first]->WaitFor(
        "gone", absl::Seconds(1),
        [&](const CandidateLine& line) { return line.epoch == leader->second.epoch; });
    if (gone.has_value()) key_gone.push_back(absl::Nanoseconds(gone->at_ns - killed_ns));
    StartCandidate(victim);
    leader = next;
  }
  std::vector<std::string> each;
  for (absl::Duration d : failover) each.push_back(Ms(d));
  std::printf(
      "election failover over %d SIGKILLs, TTL %s: p50 %s, max %s (kill -> rival's Txn "
      "returned); kill -> key deleted seen: p50 %s, max %s; each: %s\n",
      kKills, Ms(Ttl()).c_str(), Ms(Percentile(failover, 0.5)).c_str(),
      Ms(*std::max_element(failover.begin(), failover.end())).c_str(),
      key_gone.empty() ? "-" : Ms(Percentile(key_gone, 0.5)).c_str(),
      key_gone.empty() ? "-" : Ms(*std::max_element(key_gone.begin(), key_gone.end())).c_str(),
      absl::StrJoin(each, ", ").c_str());
  // A lease ends TTL after its last renewal (at most a keepalive interval
  // before the kill), plus etcd's 500 ms expiry sweep and a Txn.
  EXPECT_LE(*std::max_element(failover.begin(), failover.end()), Ttl() + absl::Seconds(1));
}

}  // namespace
}  // namespace taskboard::testing
