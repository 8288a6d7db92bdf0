#include "common/otel/traceparent.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/lower_hex.h"

namespace taskboard::otel {
namespace {

// version "-" trace-id "-" parent-id "-" trace-flags.
constexpr size_t kVersion00Length = 2 + 1 + 32 + 1 + 16 + 1 + 2;
// The spec drops tracestate members longer than this first when truncating.
constexpr size_t kLongTracestateMember = 128;

int HexByte(absl::string_view two) { return LowerHexValue(two[0]) << 4 | LowerHexValue(two[1]); }

absl::string_view TrimOptionalWhitespace(absl::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace

absl::StatusOr<SpanContext> ParseTraceparent(absl::string_view raw) {
  const absl::string_view value = TrimOptionalWhitespace(raw);
  if (value.size() > kMaxTraceparentBytes) {
    return absl::InvalidArgumentError(absl::StrCat("traceparent has ", value.size(),
                                                   " characters; at most ", kMaxTraceparentBytes,
                                                   " are read"));
  }
  if (value.size() < kVersion00Length) {
    return absl::InvalidArgumentError(absl::StrCat(
        "traceparent has ", value.size(), " characters; version 00 has ", kVersion00Length));
  }
  const absl::string_view version = value.substr(0, 2);
  if (!IsLowerHex(version)) {
    return absl::InvalidArgumentError("traceparent version is not 2 lowercase hex digits");
  }
  if (version == "ff") return absl::InvalidArgumentError("traceparent version ff is invalid");
  if (value[2] != '-' || value[35] != '-' || value[52] != '-') {
    return absl::InvalidArgumentError("traceparent fields are not separated by '-' where expected");
  }
  if (version == "00" && value.size() != kVersion00Length) {
    return absl::InvalidArgumentError(absl::StrCat("traceparent version 00 has ", value.size(),
                                                   " characters, not ", kVersion00Length));
  }
  // A later version may append fields, each after a '-'.
  if (value.size() > kVersion00Length && value[kVersion00Length] != '-') {
    return absl::InvalidArgumentError("traceparent flags are not followed by '-' or the end");
  }
  const absl::string_view trace_hex = value.substr(3, 32);
  const absl::string_view span_hex = value.substr(36, 16);
  const absl::string_view flags_hex = value.substr(53, 2);
  if (!IsLowerHex(trace_hex) || !IsLowerHex(span_hex) || !IsLowerHex(flags_hex)) {
    return absl::InvalidArgumentError(
        "traceparent trace id, parent id or flags are not lowercase hex");
  }
  SpanContext context;
  context.trace_id = *TraceIdFromHex(trace_hex);
  context.span_id = *SpanIdFromHex(span_hex);
  if (!context.trace_id.IsValid()) {
    return absl::InvalidArgumentError("traceparent trace id is all zeroes");
  }
  if (!context.span_id.IsValid()) {
    return absl::InvalidArgumentError("traceparent parent id is all zeroes");
  }
  const int flags = HexByte(flags_hex);
  // Of a later version's flags only the sampled bit is known to mean the same.
  context.trace_flags = static_cast<uint8_t>(version == "00" ? flags : flags & kSampledFlag);
  context.remote = true;
  return context;
}

std::string FormatTraceparent(const SpanContext& context) {
  return absl::StrCat("00-", context.trace_id.Hex(), "-", context.span_id.Hex(),
                      context.sampled() ? "-01" : "-00");
}

std::string BoundTracestate(absl::string_view value) {
  for (char c : value) {
    if (c < 0x20 || c > 0x7e) return "";
  }
  std::vector<absl::string_view> members;
  for (absl::string_view member : absl::StrSplit(value, ',')) {
    member = TrimOptionalWhitespace(member);
    if (member.empty()) continue;
    // Stop at the first member too many: a hostile value of many short
    // members costs no more than a valid one.
    if (members.size() == kMaxTracestateMembers) return "";
    members.push_back(member);
  }
  if (value.size() <= kMaxTracestateBytes) return std::string(value);
  auto joined_size = [](const std::vector<absl::string_view>& list) {
    size_t size = list.empty() ? 0 : list.size() - 1;
    for (absl::string_view member : list) size += member.size();
    return size;
  };
  std::vector<absl::string_view> kept;
  for (absl::string_view member : members) {
    if (member.size() <= kLongTracestateMember) kept.push_back(member);
  }
  while (!kept.empty() && joined_size(kept) > kMaxTracestateBytes) kept.pop_back();
  return absl::StrJoin(kept, ",");
}

std::optional<SpanContext> ExtractTraceContext(absl::string_view traceparent,
                                               absl::string_view tracestate) {
  absl::StatusOr<SpanContext> context = ParseTraceparent(traceparent);
  if (!context.ok()) return std::nullopt;
  context->trace_state = BoundTracestate(tracestate);
  return *std::move(context);
}

}  // namespace taskboard::otel
