#include "scheduler/audit/refusal_limiter.h"

#include "gtest/gtest.h"

namespace taskboard::audit {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

RefusalLimits Limits() {
  RefusalLimits limits;
  limits.per_source_per_second = 1;
  limits.per_source_burst = 3;
  limits.total_per_second = 10;
  limits.total_burst = 5;
  limits.max_sources = 4;
  return limits;
}

TEST(RefusalLimiterTest, Allow_OneSource_BurstThenRate) {
  RefusalLimiter limiter(Limits());
  int allowed = 0;
  for (int i = 0; i < 100; ++i) allowed += limiter.Allow("peer:a", kStart) ? 1 : 0;
  EXPECT_EQ(allowed, 3);
  EXPECT_FALSE(limiter.Allow("peer:a", kStart + absl::Milliseconds(500)));
  EXPECT_TRUE(limiter.Allow("peer:a", kStart + absl::Seconds(1)));
  EXPECT_FALSE(limiter.Allow("peer:a", kStart + absl::Seconds(1)));
}

TEST(RefusalLimiterTest, Allow_ManySources_BoundedByTheTotal) {
  RefusalLimiter limiter(Limits());
  int allowed = 0;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 10; ++j) {
      allowed += limiter.Allow("peer:" + std::to_string(i), kStart) ? 1 : 0;
    }
  }
  EXPECT_EQ(allowed, 5);
}

TEST(RefusalLimiterTest, Allow_SourceTableFull_ForgetsIdleSourcesFirst) {
  RefusalLimits limits = Limits();
  limits.total_burst = 1000;
  limits.total_per_second = 1000;
  RefusalLimiter limiter(limits);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(limiter.Allow("peer:" + std::to_string(i), kStart));
  // Every source is busy: a fifth is not recorded.
  EXPECT_FALSE(limiter.Allow("peer:new", kStart));
  // Once they refilled (idle), they are forgotten and the new one fits.
  EXPECT_TRUE(limiter.Allow("peer:new", kStart + absl::Seconds(10)));
}

TEST(RefusalSourceTest, KnownTokenByTenant_UnknownByAddressWithoutPort) {
  EXPECT_EQ(RefusalSource("acme", true, "ipv4:10.0.0.7:5000"), "tenant:acme");
  EXPECT_EQ(RefusalSource("", false, "ipv4:10.0.0.7:5000"), "peer:ipv4:10.0.0.7");
  EXPECT_EQ(RefusalSource("", false, "ipv4:10.0.0.7:6000"), "peer:ipv4:10.0.0.7");
  EXPECT_EQ(RefusalSource("", false, "ipv6:[::1]:6000"), "peer:ipv6:[::1]");
  EXPECT_EQ(RefusalSource("", false, "inproc"), "peer:inproc");
}

}  // namespace
}  // namespace taskboard::audit
