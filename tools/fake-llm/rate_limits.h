#ifndef TASKBOARD_TOOLS_FAKE_LLM_RATE_LIMITS_H_
#define TASKBOARD_TOOLS_FAKE_LLM_RATE_LIMITS_H_

// The fake LLM's requests-per-minute and tokens-per-minute limits (--rpm,
// --tpm), so the cluster's LLM governance can be tested against a server
// that refuses like OpenAI: a 429 with Retry-After beyond either limit.
//
// Each limit is a common/rate_bucket.h bucket with its default burst, so it
// is enforced the way providers quantize theirs: refilled continuously at the
// limit per minute, holding one second's worth. The scheduler's governor
// counts with the same class, so both sides of the test agree on what fits.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/rate_bucket.h"
#include "tools/fake-llm/completion_renderer.h"

namespace taskboard::fake_llm {

struct RateLimitOptions {
  // Per minute; 0: unlimited.
  double requests_per_minute = 0;
  double tokens_per_minute = 0;
};

// Why a request was refused: the bucket that has no room ("requests" or
// "tokens"; the one with the longer wait when both have none), its limit and
// how long until it has room.
struct RateLimitRefusal {
  std::string type;
  double limit = 0;
  absl::Duration wait;
};

// Not thread-safe (ChatHandler checks and charges under one lock, so a
// request admitted on an emptied bucket is impossible); times are passed in
// so tests control the clock.
class RateLimits {
 public:
  explicit RateLimits(const RateLimitOptions& options);

  // nullopt when both buckets have room at `now`, else the refusal. The
  // token cost does not matter here: a bucket with room admits any request
  // and the request owes whatever it costs beyond (RateBucket), so the rule
  // is chosen, and its usage known, only for admitted requests.
  std::optional<RateLimitRefusal> Check(absl::Time now) const;
  // Charges an admitted request: one request and `tokens` tokens.
  void Charge(absl::Time now, int64_t tokens);

 private:
  std::optional<RateBucket> requests_;
  std::optional<RateBucket> tokens_;
};

// OpenAI's x-ratelimit-limit-requests / -tokens headers, for the limits set
// (none when both are unlimited).
std::vector<std::pair<std::string, std::string>> RateLimitHeaders(const RateLimitOptions& options);

// The 429 OpenAI sends: Retry-After the wait rounded up to whole seconds (at
// least 1) and an error {message, type: requests|tokens, code:
// rate_limit_exceeded}.
HttpReply RenderRateLimited(const RateLimitRefusal& refusal);

// A --rpm / --tpm value: a number >= 0 (0: unlimited). INVALID_ARGUMENT
// naming `flag` otherwise.
absl::StatusOr<double> ParsePerMinuteLimit(absl::string_view flag, absl::string_view text);

}  // namespace taskboard::fake_llm

#endif  // TASKBOARD_TOOLS_FAKE_LLM_RATE_LIMITS_H_
