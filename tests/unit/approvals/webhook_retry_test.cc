// When the approval webhook retries, and how long it waits.

#include "scheduler/notify/webhook_retry.h"

#include "gtest/gtest.h"

namespace taskboard::notify {
namespace {

TEST(ClassifyAttempt, TwoHundreds_Delivered) {
  EXPECT_EQ(ClassifyAttempt(200), AttemptOutcome::kDelivered);
  EXPECT_EQ(ClassifyAttempt(204), AttemptOutcome::kDelivered);
}

TEST(ClassifyAttempt, ServerErrorsTooManyRequestsAndNoAnswer_Retried) {
  EXPECT_EQ(ClassifyAttempt(500), AttemptOutcome::kRetry);
  EXPECT_EQ(ClassifyAttempt(503), AttemptOutcome::kRetry);
  EXPECT_EQ(ClassifyAttempt(429), AttemptOutcome::kRetry);
  EXPECT_EQ(ClassifyAttempt(absl::UnavailableError("connection refused")), AttemptOutcome::kRetry);
  EXPECT_EQ(ClassifyAttempt(absl::DeadlineExceededError("no answer within 10s")),
            AttemptOutcome::kRetry);
}

TEST(ClassifyAttempt, OtherClientErrorsAndRedirects_Refused) {
  EXPECT_EQ(ClassifyAttempt(400), AttemptOutcome::kRefused);
  EXPECT_EQ(ClassifyAttempt(401), AttemptOutcome::kRefused);
  EXPECT_EQ(ClassifyAttempt(404), AttemptOutcome::kRefused);
  EXPECT_EQ(ClassifyAttempt(302), AttemptOutcome::kRefused);
}

TEST(RetryDelayMs, DoublesFromOneSecond_CappedAtSixty) {
  WebhookRetryPolicy policy;
  EXPECT_EQ(RetryDelayMs(policy, 1), 1'000);
  EXPECT_EQ(RetryDelayMs(policy, 2), 2'000);
  EXPECT_EQ(RetryDelayMs(policy, 3), 4'000);
  EXPECT_EQ(RetryDelayMs(policy, 6), 32'000);
  EXPECT_EQ(RetryDelayMs(policy, 7), 60'000);
  EXPECT_EQ(RetryDelayMs(policy, 99), 60'000);
}

}  // namespace
}  // namespace taskboard::notify
