#include "common/otel/trace_ids.h"

#include <algorithm>
#include <cstring>

#include "absl/random/random.h"
#include "common/lower_hex.h"

namespace taskboard::otel {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

template <size_t N>
bool AllZero(const std::array<uint8_t, N>& bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
}

template <size_t N>
std::string ToHex(const std::array<uint8_t, N>& bytes) {
  std::string hex(2 * N, '0');
  for (size_t i = 0; i < N; ++i) {
    hex[2 * i] = kHexDigits[bytes[i] >> 4];
    hex[2 * i + 1] = kHexDigits[bytes[i] & 0xf];
  }
  return hex;
}

template <size_t N>
bool FromHex(absl::string_view hex, std::array<uint8_t, N>& bytes) {
  if (hex.size() != 2 * N) return false;
  for (size_t i = 0; i < N; ++i) {
    const int high = LowerHexValue(hex[2 * i]);
    const int low = LowerHexValue(hex[2 * i + 1]);
    if (high < 0 || low < 0) return false;
    bytes[i] = static_cast<uint8_t>(high << 4 | low);
  }
  return true;
}

absl::BitGen& ThreadGenerator() {
  thread_local absl::BitGen generator;
  return generator;
}

template <size_t N>
void FillRandomNonZero(std::array<uint8_t, N>& bytes) {
  static_assert(N % 8 == 0);
  do {
    for (size_t i = 0; i < N; i += 8) {
      const uint64_t word = absl::Uniform<uint64_t>(ThreadGenerator());
      std::memcpy(bytes.data() + i, &word, 8);
    }
  } while (AllZero(bytes));
}

}  // namespace

bool TraceId::IsValid() const { return !AllZero(bytes); }
std::string TraceId::Hex() const { return ToHex(bytes); }
bool SpanId::IsValid() const { return !AllZero(bytes); }
std::string SpanId::Hex() const { return ToHex(bytes); }

TraceId NewTraceId() {
  TraceId id;
  FillRandomNonZero(id.bytes);
  return id;
}

SpanId NewSpanId() {
  SpanId id;
  FillRandomNonZero(id.bytes);
  return id;
}

std::optional<TraceId> TraceIdFromHex(absl::string_view hex) {
  TraceId id;
  if (!FromHex(hex, id.bytes)) return std::nullopt;
  return id;
}

std::optional<SpanId> SpanIdFromHex(absl::string_view hex) {
  SpanId id;
  if (!FromHex(hex, id.bytes)) return std::nullopt;
  return id;
}

}  // namespace taskboard::otel
