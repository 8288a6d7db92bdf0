// The approval webhook's signature: HMAC-SHA256 (RFC 4231 test vector) over
// "<timestamp>.<body>", as docs/approvals.md#notify tells receivers to check.

#include "scheduler/notify/webhook_signature.h"

#include "common/hmac_sha256.h"
#include "gtest/gtest.h"

namespace taskboard::notify {
namespace {

TEST(HmacSha256, Rfc4231TestCase2) {
  EXPECT_EQ(HmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(WebhookSignature, SignsTimestampDotBody_AsPythonsHmacDoes) {
  // python3 -c 'import hmac,hashlib; print(hmac.new(b"whsec-test",
  //   b"1700000000.{\"event\":\"approval.waiting\"}", hashlib.sha256).hexdigest())'
  EXPECT_EQ(WebhookSignature("whsec-test", 1700000000, R"({"event":"approval.waiting"})"),
            "sha256=96234f1ed9703a78419a510ad398817d1b2dedb37c64dda6d58726035631947b");
}

TEST(WebhookSignature, OtherTimestampOrBody_OtherSignature) {
  const std::string base = WebhookSignature("k", 1, "{}");
  EXPECT_NE(WebhookSignature("k", 2, "{}"), base);
  EXPECT_NE(WebhookSignature("k", 1, "{ }"), base);
  EXPECT_NE(WebhookSignature("other", 1, "{}"), base);
}

}  // namespace
}  // namespace taskboard::notify
