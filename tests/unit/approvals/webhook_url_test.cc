// Which URLs the approval webhook may POST to, and the allow-list prefixes.

#include "common/webhook_url.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

TEST(CheckWebhookUrl, HttpAndHttps_Accepted) {
  EXPECT_THAT(CheckWebhookUrl("https://hooks.example.com/taskboard"), IsOk());
  EXPECT_THAT(CheckWebhookUrl("http://127.0.0.1:8080/hook?x=1"), IsOk());
  EXPECT_THAT(CheckWebhookUrl("https://user:pw@hooks.example.com"), IsOk());
}

TEST(CheckWebhookUrl, OtherSchemesNoHostSpacesOrTooLong_Refused) {
  EXPECT_THAT(CheckWebhookUrl("ftp://example.com/"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("http:// or https://")));
  EXPECT_THAT(CheckWebhookUrl("file:///etc/passwd"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(CheckWebhookUrl("hooks.example.com"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(CheckWebhookUrl("https:///path"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no host")));
  EXPECT_THAT(CheckWebhookUrl("https://:80/"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(CheckWebhookUrl("https://example.com/a b"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spaces")));
  EXPECT_THAT(CheckWebhookUrl("https://example.com/\r\nX-Evil: 1"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(CheckWebhookUrl("https://example.com/" + std::string(kMaxWebhookUrlBytes, 'a')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("2048")));
}

TEST(WebhookUrlAllowed, PrefixMatchesAtABoundary) {
  const std::vector<std::string> allow = {"https://hooks.example.com", "http://10.0.0.5:9000/tb/"};
  EXPECT_TRUE(WebhookUrlAllowed("https://hooks.example.com", allow));
  EXPECT_TRUE(WebhookUrlAllowed("https://hooks.example.com/team-a", allow));
  EXPECT_TRUE(WebhookUrlAllowed("https://hooks.example.com?x=1", allow));
  EXPECT_TRUE(WebhookUrlAllowed("http://10.0.0.5:9000/tb/approvals", allow));
  EXPECT_FALSE(WebhookUrlAllowed("https://hooks.example.com.evil.net/", allow));
  EXPECT_FALSE(WebhookUrlAllowed("https://hooks.example.community/", allow));
  EXPECT_FALSE(WebhookUrlAllowed("http://10.0.0.5:9000/other", allow));
  EXPECT_FALSE(WebhookUrlAllowed("http://hooks.example.com/", allow));
}

TEST(WebhookUrlAllowed, NoPrefixes_NothingAllowed) {
  EXPECT_FALSE(WebhookUrlAllowed("https://hooks.example.com/", {}));
  EXPECT_FALSE(WebhookUrlAllowed("https://hooks.example.com/", {""}));
}

}  // namespace
}  // namespace taskboard
