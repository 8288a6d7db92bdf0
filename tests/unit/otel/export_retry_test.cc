// Which export attempts are retried, and the backoff between them.

#include "common/otel/export_retry.h"

#include "gtest/gtest.h"

namespace taskboard::otel {
namespace {

absl::StatusOr<OtlpHttpResponse> Answer(int status) { return OtlpHttpResponse{.status = status}; }

TEST(ClassifyAttempt, TwoHundreds_AreExported) {
  EXPECT_EQ(ClassifyAttempt(Answer(200)), AttemptOutcome::kExported);
  EXPECT_EQ(ClassifyAttempt(Answer(204)), AttemptOutcome::kExported);
}

TEST(ClassifyAttempt, OtlpsRetryableStatuses_AreRetried) {
  for (int status : {429, 502, 503, 504}) {
    EXPECT_EQ(ClassifyAttempt(Answer(status)), AttemptOutcome::kRetryable) << status;
  }
}

TEST(ClassifyAttempt, OtherStatuses_AreRefused) {
  for (int status : {301, 400, 401, 404, 413, 500, 501}) {
    EXPECT_EQ(ClassifyAttempt(Answer(status)), AttemptOutcome::kRefused) << status;
  }
}

TEST(ClassifyAttempt, NoAnswer_IsRetriedUnlessCancelled) {
  EXPECT_EQ(ClassifyAttempt(absl::UnavailableError("connection refused")),
            AttemptOutcome::kRetryable);
  EXPECT_EQ(ClassifyAttempt(absl::DeadlineExceededError("timeout")), AttemptOutcome::kRetryable);
  EXPECT_EQ(ClassifyAttempt(absl::CancelledError("stop")), AttemptOutcome::kCancelled);
}

TEST(BackoffDelay, GrowsByHalfAndIsCapped) {
  const RetryPolicy policy{.initial_backoff = absl::Seconds(1), .max_backoff = absl::Seconds(2)};
  // jitter just under 1: the full delay.
  EXPECT_NEAR(absl::ToDoubleSeconds(BackoffDelay(policy, 1, 0.999999)), 1.0, 1e-3);
  EXPECT_NEAR(absl::ToDoubleSeconds(BackoffDelay(policy, 2, 0.999999)), 1.5, 1e-3);
  EXPECT_NEAR(absl::ToDoubleSeconds(BackoffDelay(policy, 5, 0.999999)), 2.0, 1e-3);
  // jitter 0: half of it.
  EXPECT_EQ(BackoffDelay(policy, 1, 0.0), absl::Milliseconds(500));
}

TEST(ParseRetryAfter, SecondsOnly) {
  EXPECT_EQ(ParseRetryAfter("3"), absl::Seconds(3));
  EXPECT_EQ(ParseRetryAfter(" 0 "), absl::ZeroDuration());
  EXPECT_EQ(ParseRetryAfter(""), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("-1"), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT"), std::nullopt);
}

}  // namespace
}  // namespace taskboard::otel
