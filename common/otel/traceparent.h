#ifndef TASKBOARD_COMMON_OTEL_TRACEPARENT_H_
#define TASKBOARD_COMMON_OTEL_TRACEPARENT_H_

// The W3C Trace Context headers (https://www.w3.org/TR/trace-context/):
// `traceparent` parsed strictly and written as version 00, `tracestate`
// carried opaque within bounds. A caller ignores what does not parse and
// starts a new trace, as the spec says. Pure functions; thread-safe.

#include <cstddef>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/otel/span_context.h"

namespace taskboard::otel {

// The W3C minimum a propagator must carry, and the member count above which
// the whole tracestate is invalid.
inline constexpr size_t kMaxTracestateBytes = 512;
inline constexpr size_t kMaxTracestateMembers = 32;
// The longest traceparent read at all. Version 00 is 55 characters; the spec
// sets no bound for later versions, so a hostile header is refused here
// before any of it is looked at.
inline constexpr size_t kMaxTraceparentBytes = 256;

// Parses `value` (`00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`,
// lowercase hex only) into a remote context without a tracestate.
// Surrounding spaces and tabs (HTTP's optional whitespace) are ignored.
// Version ff is invalid; a higher version than 00 is read as the spec says:
// its first 55 characters as version 00, and anything after them must start
// with '-'. Errors: INVALID_ARGUMENT, saying what is wrong (wrong length or
// separator, not lowercase hex, version ff, an all-zero trace or parent id,
// data after a version 00 value, more than kMaxTraceparentBytes).
absl::StatusOr<SpanContext> ParseTraceparent(absl::string_view value);

// `00-<trace id>-<span id>-<flags>` for a valid `context`; the flags written
// are the sampled bit only (the one flag version 00 defines).
std::string FormatTraceparent(const SpanContext& context);

// `value` as a tracestate to carry: unchanged when it is at most
// kMaxTracestateBytes; longer, its members longer than 128 bytes go first,
// then members from the end, until it fits (the spec's truncation order).
// Empty when it is invalid as a whole: more than kMaxTracestateMembers
// members, or a byte outside printable ASCII. Reads at most
// kMaxTracestateMembers + 1 members, whatever the value's length.
std::string BoundTracestate(absl::string_view value);

// The context the two headers carry, or nullopt when `traceparent` does not
// parse (the caller starts a new trace; the tracestate goes with it).
std::optional<SpanContext> ExtractTraceContext(absl::string_view traceparent,
                                               absl::string_view tracestate);

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_TRACEPARENT_H_
