#ifndef TASKBOARD_COMMON_OTEL_TRACE_IDS_H_
#define TASKBOARD_COMMON_OTEL_TRACE_IDS_H_

// Trace and span identifiers as W3C Trace Context and OTLP define them: 16
// and 8 bytes, all zeroes meaning invalid. New ones are random and never
// zero: the rightmost 7 bytes of a trace id are the randomness the ratio
// sampler reads (sampler.h), so every id bit is drawn from a PRNG. Thread-safe:
// each thread draws from a generator of its own.

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace taskboard::otel {

struct TraceId {
  std::array<uint8_t, 16> bytes{};

  bool IsValid() const;
  // 32 lowercase hex digits.
  std::string Hex() const;
  absl::string_view Bytes() const {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
  }
  friend bool operator==(const TraceId&, const TraceId&) = default;
};

struct SpanId {
  std::array<uint8_t, 8> bytes{};

  bool IsValid() const;
  // 16 lowercase hex digits.
  std::string Hex() const;
  absl::string_view Bytes() const {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
  }
  friend bool operator==(const SpanId&, const SpanId&) = default;
};

// Random and valid (not all zeroes).
TraceId NewTraceId();
SpanId NewSpanId();

// The id the hex text spells: exactly 32 (16) lowercase hex digits, else
// nullopt. An all-zero id parses (it is well-formed, but not IsValid()).
std::optional<TraceId> TraceIdFromHex(absl::string_view hex);
std::optional<SpanId> SpanIdFromHex(absl::string_view hex);

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_TRACE_IDS_H_
