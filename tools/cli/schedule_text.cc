#include "tools/cli/schedule_text.h"

#include <cctype>

#include "absl/strings/strip.h"
#include "absl/time/time.h"

namespace taskboard::cli {

std::string TimeText(const google::protobuf::Timestamp& stamp) {
  if (stamp.seconds() == 0 && stamp.nanos() == 0) return "-";
  const absl::Time time = absl::FromUnixSeconds(stamp.seconds()) + absl::Nanoseconds(stamp.nanos());
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E*SZ", time, absl::UTCTimeZone());
}

std::string RunStatusText(v1::RunStatus status) {
  if (status == v1::RUN_STATUS_UNSPECIFIED) return "-";
  std::string name(absl::StripPrefix(v1::RunStatus_Name(status), "RUN_STATUS_"));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

}  // namespace taskboard::cli
