#include "scheduler/auth/listen_exposure.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::auth {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// The exposure CheckListenExposure allows; fails the test when it refuses.
Exposure Checked(const char* listen, bool has_auth_tokens, bool insecure) {
  absl::StatusOr<Exposure> exposure = CheckListenExposure(listen, has_auth_tokens, insecure);
  EXPECT_THAT(exposure.status(), IsOk()) << listen;
  return exposure.value_or(Exposure::kLoopbackOnly);
}

TEST(ListenExposureTest, LoopbackAddresses_AreLoopbackOnly) {
  for (const char* listen :
       {"127.0.0.1:7233", "127.0.0.1:0", "127.8.9.10:1", "[::1]:7233", "localhost:7233",
        "LOCALHOST:7233", "[::ffff:127.0.0.1]:7233", "unix:/tmp/taskboard.sock"}) {
    EXPECT_TRUE(ListensOnLoopbackOnly(listen)) << listen;
  }
}

TEST(ListenExposureTest, OtherAddresses_AreReachableFromElsewhere) {
  for (const char* listen : {"0.0.0.0:7233", "[::]:7233", ":7233", "10.0.0.5:7233",
                             "128.0.0.1:7233", "[2001:db8::1]:7233", "scheduler.example:7233",
                             "localhost.example:7233", "[::ffff:10.0.0.1]:7233"}) {
    EXPECT_FALSE(ListensOnLoopbackOnly(listen)) << listen;
  }
}

TEST(ListenExposureTest, Loopback_WithoutTokens_Starts) {
  EXPECT_EQ(Checked("127.0.0.1:0", false, false), Exposure::kLoopbackOnly);
}

TEST(ListenExposureTest, AllInterfaces_WithTokens_StartsAuthenticated) {
  EXPECT_EQ(Checked("0.0.0.0:7233", true, false), Exposure::kAuthenticated);
  EXPECT_EQ(Checked("0.0.0.0:7233", true, true), Exposure::kAuthenticated);
}

TEST(ListenExposureTest, AllInterfaces_InsecureWithoutTokens_StartsInsecure) {
  EXPECT_EQ(Checked("[::]:7233", false, true), Exposure::kInsecure);
}

TEST(ListenExposureTest, AllInterfaces_NeitherTokensNorInsecure_FailsSayingWhatToPass) {
  EXPECT_THAT(CheckListenExposure("0.0.0.0:7233", false, false),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("--listen 0.0.0.0:7233"), HasSubstr("--auth-tokens FILE"),
                             HasSubstr("--insecure"))));
}

}  // namespace
}  // namespace taskboard::auth
