// The --approval-webhook* flags at start: URLs checked, the secret file
// read with its trailing newline dropped, and refusals naming the flag.

#include "scheduler/notify/webhook_flags.h"

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::notify {
namespace {

using taskboard::testing::IsOk;
using taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class WebhookFlagsTest : public ::testing::Test {
 protected:
  std::string SecretFile(const std::string& text) {
    const std::string path = (dir_.path() / "secret").string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  taskboard::testing::TempDir dir_;
  WebhookNotifierOptions options_;
  std::vector<std::string> allow_;
};

TEST_F(WebhookFlagsTest, AllSet_Applied_SecretTrimmed) {
  WebhookFlags flags;
  flags.url = "https://hooks.example.com/all";
  flags.secret_file = SecretFile("s3cret\n");
  flags.allow = {"https://team.example.com/"};
  flags.attempts = 3;
  flags.queue = 10;
  ASSERT_THAT(ApplyWebhookFlags(flags, options_, allow_), IsOk());
  EXPECT_EQ(options_.url, "https://hooks.example.com/all");
  EXPECT_EQ(options_.secret, "s3cret");
  EXPECT_EQ(options_.retry.attempts, 3);
  EXPECT_EQ(options_.queue_capacity, 10u);
  EXPECT_THAT(allow_, ElementsAre("https://team.example.com/"));
}

TEST_F(WebhookFlagsTest, SecretFileMissingOrEmpty_RefusedNamingTheFlag) {
  WebhookFlags flags;
  flags.secret_file = (dir_.path() / "nope").string();
  EXPECT_THAT(
      ApplyWebhookFlags(flags, options_, allow_),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--approval-webhook-secret-file")));
  flags.secret_file = SecretFile("\n");
  EXPECT_THAT(ApplyWebhookFlags(flags, options_, allow_),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty")));
}

TEST_F(WebhookFlagsTest, BadUrlOrPrefix_RefusedNamingTheFlag) {
  WebhookFlags flags;
  flags.url = "ftp://example.com/";
  EXPECT_THAT(ApplyWebhookFlags(flags, options_, allow_),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--approval-webhook:")));
  flags.url.clear();
  flags.allow = {"hooks.example.com"};
  EXPECT_THAT(ApplyWebhookFlags(flags, options_, allow_),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--approval-webhook-allow")));
}

}  // namespace
}  // namespace taskboard::notify
