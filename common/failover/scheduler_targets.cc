#include "common/failover/scheduler_targets.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace taskboard::failover {
namespace {

// gRPC target schemes whose value is one target even with commas in it
// (`ipv4:10.0.0.1:7233,10.0.0.2:7233` is gRPC's own list, balanced by the
// channel, not ours to split).
constexpr absl::string_view kUriSchemes[] = {
    "dns:", "ipv4:", "ipv6:", "unix:", "unix-abstract:", "vsock:", "xds:"};

bool IsTargetUri(absl::string_view value) {
  return std::any_of(std::begin(kUriSchemes), std::end(kUriSchemes),
                     [&](absl::string_view scheme) { return absl::StartsWith(value, scheme); });
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ParseSchedulerTargets(absl::string_view value) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(value);
  if (trimmed.empty()) {
    return absl::InvalidArgumentError(
        "--scheduler is empty: give host:port, several as host:port,host:port, or "
        "dns:///name:port");
  }
  if (IsTargetUri(trimmed)) return std::vector<std::string>{std::string(trimmed)};
  std::vector<std::string> targets;
  int position = 0;
  for (absl::string_view part : absl::StrSplit(trimmed, ',')) {
    ++position;
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--scheduler '", value, "': address ", position,
          " is empty; give host:port, several as host:port,host:port (no empty entries)"));
    }
    if (std::find(targets.begin(), targets.end(), part) == targets.end()) {
      targets.emplace_back(part);
    }
  }
  return targets;
}

}  // namespace taskboard::failover
