#include "scheduler/triggers/hub_signature.h"

#include "absl/strings/ascii.h"
#include "gtest/gtest.h"

namespace taskboard::triggers {
namespace {

// GitHub's documented example ("Validating webhook deliveries"): secret
// "It's a Secret to Everybody", payload "Hello, World!".
constexpr char kSecret[] = "It's a Secret to Everybody";
constexpr char kBody[] = "Hello, World!";
constexpr char kGitHubSignature[] =
    "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

TEST(HubSignatureTest, HubSignature_MatchesGitHubsExample) {
  EXPECT_EQ(HubSignature(kSecret, kBody), kGitHubSignature);
}

TEST(HubSignatureTest, Matches_RightSignature_AnyHexCase) {
  EXPECT_TRUE(HubSignatureMatches(kSecret, kBody, kGitHubSignature));
  EXPECT_TRUE(HubSignatureMatches(
      kSecret, kBody, absl::AsciiStrToUpper(kGitHubSignature).replace(0, 7, "sha256=")));
}

TEST(HubSignatureTest, Matches_WrongBodySecretOrShape_IsFalse) {
  EXPECT_FALSE(HubSignatureMatches(kSecret, "Hello, World?", kGitHubSignature));
  EXPECT_FALSE(HubSignatureMatches("another secret", kBody, kGitHubSignature));
  EXPECT_FALSE(HubSignatureMatches(kSecret, kBody, ""));
  EXPECT_FALSE(HubSignatureMatches(kSecret, kBody, std::string(kGitHubSignature).substr(7)));
  EXPECT_FALSE(HubSignatureMatches(kSecret, kBody, std::string(kGitHubSignature) + "00"));
  EXPECT_FALSE(HubSignatureMatches(kSecret, kBody, "sha1=757107ea0eb2509fc211221cce984b8a"));
}

}  // namespace
}  // namespace taskboard::triggers
