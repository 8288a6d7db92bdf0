#include "tools/fake-llm/rate_limits.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace taskboard::fake_llm {
namespace {

// 600 rather than 600.0 or 6e+02, as OpenAI's headers and messages show it.
std::string FormatLimit(double limit) {
  if (limit == std::floor(limit) && limit < 1e15) {
    return absl::StrCat(static_cast<int64_t>(limit));
  }
  return absl::StrFormat("%.10g", limit);
}

// How long a bucket with no room at `now` makes a request wait; zero for an
// unlimited one.
absl::Duration WaitOf(const std::optional<RateBucket>& bucket, absl::Time now) {
  return bucket.has_value() ? bucket->WaitFor(now) : absl::ZeroDuration();
}

}  // namespace

RateLimits::RateLimits(const RateLimitOptions& options) {
  if (options.requests_per_minute > 0) requests_.emplace(options.requests_per_minute);
  if (options.tokens_per_minute > 0) tokens_.emplace(options.tokens_per_minute);
}

std::optional<RateLimitRefusal> RateLimits::Check(absl::Time now) const {
  const absl::Duration requests_wait = WaitOf(requests_, now);
  const absl::Duration tokens_wait = WaitOf(tokens_, now);
  if (requests_wait == absl::ZeroDuration() && tokens_wait == absl::ZeroDuration()) {
    return std::nullopt;
  }
  // Name the limit that keeps the client waiting longest: retrying after its
  // wait finds room in both.
  if (requests_wait >= tokens_wait) {
    return RateLimitRefusal{"requests", requests_->per_minute(), requests_wait};
  }
  return RateLimitRefusal{"tokens", tokens_->per_minute(), tokens_wait};
}

void RateLimits::Charge(absl::Time now, int64_t tokens) {
  if (requests_.has_value()) requests_->Take(now, 1);
  if (tokens_.has_value()) tokens_->Take(now, static_cast<double>(tokens));
}

std::vector<std::pair<std::string, std::string>> RateLimitHeaders(const RateLimitOptions& options) {
  std::vector<std::pair<std::string, std::string>> headers;
  if (options.requests_per_minute > 0) {
    headers.emplace_back("x-ratelimit-limit-requests", FormatLimit(options.requests_per_minute));
  }
  if (options.tokens_per_minute > 0) {
    headers.emplace_back("x-ratelimit-limit-tokens", FormatLimit(options.tokens_per_minute));
  }
  return headers;
}

HttpReply RenderRateLimited(const RateLimitRefusal& refusal) {
  // Rounded up so a client that waits exactly Retry-After finds room.
  const int64_t seconds =
      std::max<int64_t>(1, absl::ToInt64Seconds(absl::Ceil(refusal.wait, absl::Seconds(1))));
  HttpReply reply =
      RenderError(429,
                  absl::StrCat("Rate limit reached for ", refusal.type, " per minute (limit ",
                               FormatLimit(refusal.limit), "): retry after ", seconds, " s"),
                  refusal.type, "rate_limit_exceeded");
  reply.headers.emplace_back("Retry-After", absl::StrCat(seconds));
  return reply;
}

absl::StatusOr<double> ParsePerMinuteLimit(absl::string_view flag, absl::string_view text) {
  double limit = 0;
  // SimpleAtod takes "inf" and "nan"; neither is a limit a bucket can count.
  if (!absl::SimpleAtod(text, &limit) || !std::isfinite(limit) || limit < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " ", text, ": expected a number >= 0 per minute, such as 600 (0: unlimited)"));
  }
  return limit;
}

}  // namespace taskboard::fake_llm
