#include "common/llm_call_usage.h"

#include <algorithm>
#include <cmath>

namespace taskboard {

int64_t CallTokens(int64_t reported) { return std::clamp<int64_t>(reported, 0, kMaxCallTokens); }

int64_t CallCachedTokens(int64_t reported, int64_t input_tokens) {
  return std::clamp<int64_t>(reported, 0, std::max<int64_t>(0, input_tokens));
}

double CallCostUsd(double reported) {
  return std::isfinite(reported) ? std::clamp(reported, 0.0, kMaxCallUsd) : 0.0;
}

}  // namespace taskboard
