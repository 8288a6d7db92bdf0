#include "common/failover/leader_finder.h"

#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::failover {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const BackoffOptions kBackoff{.base = absl::Milliseconds(100), .cap = absl::Seconds(2)};

TEST(LeaderFinder, Start_IsTheFirstAddress) {
  LeaderFinder finder({"a:1", "b:2"}, kBackoff);
  EXPECT_EQ(finder.current_address(), "a:1");
}

TEST(LeaderFinder, NotLeader_SwitchesToTheNamedAddressWithoutWaiting) {
  LeaderFinder finder({"a:1", "b:2", "c:3"}, kBackoff);
  std::mt19937_64 random(1);
  EXPECT_EQ(finder.NotLeader("c:3", "not the leader", random), absl::ZeroDuration());
  EXPECT_EQ(finder.current_address(), "c:3");
  EXPECT_EQ(finder.failed_attempts(), 1);
  EXPECT_EQ(finder.waited(), absl::ZeroDuration());
}

TEST(LeaderFinder, NotLeader_UnknownLeader_IsAddedToTheList) {
  LeaderFinder finder({"a:1"}, kBackoff);
  std::mt19937_64 random(1);
  EXPECT_EQ(finder.NotLeader("d:4", "not the leader", random), absl::ZeroDuration());
  EXPECT_THAT(finder.addresses(), ElementsAre("a:1", "d:4"));
  EXPECT_EQ(finder.current_address(), "d:4");
}

// Replicas naming a new leader on every answer (100x the bound) cannot grow
// the list past kMaxLearnedAddresses: later hints are not followed and cost
// a backoff, so a call still gives up in time.
TEST(LeaderFinder, NotLeader_EverNewHints_LearnAtMostTheBoundThenBackOff) {
  LeaderFinder finder({"a:1", "b:2"}, kBackoff);
  std::mt19937_64 random(1);
  const size_t hints = LeaderFinder::kMaxLearnedAddresses * 100;
  for (size_t i = 0; i < hints; ++i) {
    finder.NotLeader(absl::StrCat("new-", i, ":7233"), "not the leader", random);
  }
  EXPECT_EQ(finder.addresses().size(), 2 + LeaderFinder::kMaxLearnedAddresses);
  EXPECT_GT(finder.waited(), absl::ZeroDuration());
  EXPECT_THAT(finder.Tried(), HasSubstr("leaders were learned from hints already"));
  // A known address is still followed at once.
  finder.Connected();
  EXPECT_EQ(finder.NotLeader("b:2", "not the leader", random), absl::ZeroDuration());
  EXPECT_EQ(finder.current_address(), "b:2");
}

TEST(LeaderFinder, NotLeader_OverlongHint_IsNotFollowed) {
  LeaderFinder finder({"a:1", "b:2"}, kBackoff);
  std::mt19937_64 random(1);
  const std::string hint(LeaderFinder::kMaxLeaderHintBytes + 1, 'x');
  EXPECT_GT(finder.NotLeader(hint, "not the leader", random), absl::ZeroDuration());
  EXPECT_THAT(finder.addresses(), ElementsAre("a:1", "b:2"));
  EXPECT_EQ(finder.current_address(), "b:2");
  EXPECT_THAT(finder.Tried(), HasSubstr("is over 270 and not followed"));
}

TEST(LeaderFinder, Unreachable_MovesToTheNextAddressWithABoundedBackoff) {
  LeaderFinder finder({"a:1", "b:2"}, kBackoff);
  std::mt19937_64 random(1);
  const absl::Duration first = finder.Unreachable("cannot connect", random);
  EXPECT_LE(first, absl::Milliseconds(100));
  EXPECT_EQ(finder.current_address(), "b:2");
  const absl::Duration second = finder.Unreachable("cannot connect", random);
  EXPECT_LE(second, absl::Milliseconds(200));
  EXPECT_EQ(finder.current_address(), "a:1");  // round again
  for (int i = 0; i < 20; ++i)
    EXPECT_LE(finder.Unreachable("cannot connect", random), kBackoff.cap);
  EXPECT_GE(finder.waited(), first + second);
}

TEST(LeaderFinder, RedirectsThatBounce_BackOffOnceEveryAddressWasTried) {
  LeaderFinder finder({"a:1", "b:2"}, {.base = absl::Seconds(1), .cap = absl::Seconds(1)});
  // Full jitter could draw zero; a generator that always draws the top of
  // the range makes the waits visible.
  struct Top {
    using result_type = uint64_t;
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return ~result_type{0}; }
    result_type operator()() { return max(); }
  } random;
  EXPECT_EQ(finder.NotLeader("b:2", "not the leader", random), absl::ZeroDuration());
  EXPECT_EQ(finder.NotLeader("a:1", "not the leader", random), absl::ZeroDuration());
  EXPECT_GT(finder.NotLeader("b:2", "not the leader", random), absl::ZeroDuration());
}

TEST(LeaderFinder, Connected_ForgetsTheFailures) {
  LeaderFinder finder({"a:1", "b:2"}, kBackoff);
  std::mt19937_64 random(1);
  finder.Unreachable("cannot connect", random);
  finder.Connected();
  EXPECT_EQ(finder.Tried(), "");
  EXPECT_EQ(finder.failed_attempts(), 1);  // a lifetime count
  EXPECT_EQ(finder.current_address(), "b:2");
}

TEST(LeaderFinder, Tried_NamesEveryAddressWithItsLastAnswer) {
  LeaderFinder finder({"a:1", "b:2"}, kBackoff);
  std::mt19937_64 random(1);
  finder.Unreachable("cannot connect", random);
  finder.Unreachable("no leader elected yet; retry", random);
  finder.Unreachable("connection refused", random);
  EXPECT_EQ(finder.Tried(), "a:1 (connection refused), b:2 (no leader elected yet; retry)");
}

}  // namespace
}  // namespace taskboard::failover
