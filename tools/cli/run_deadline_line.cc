#include "tools/cli/run_deadline_line.h"

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "tools/cli/display_format.h"

namespace taskboard::cli {

std::string RunDeadlineLine(const v1::Run& run, absl::Time now) {
  if (!run.has_deadline() || run.deadline().timeout_seconds() <= 0) return "";
  const v1::RunDeadline& deadline = run.deadline();
  const std::string source =
      deadline.source() == v1::RUN_DEADLINE_SOURCE_UNSPECIFIED
          ? "unknown"
          : absl::AsciiStrToLower(absl::StripPrefix(v1::RunDeadlineSource_Name(deadline.source()),
                                                    "RUN_DEADLINE_SOURCE_"));
  // In seconds, as the flow, SubmitRun and the run's error write it.
  const std::string what =
      absl::StrCat("deadline: ", deadline.timeout_seconds(), "s (", source, ")");
  if (run.status() == v1::RUN_STATUS_TIMED_OUT)
    return absl::StrCat(what, " passed: it ended the run");
  if (run.status() != v1::RUN_STATUS_RUNNING && run.status() != v1::RUN_STATUS_PENDING) {
    return absl::StrCat(what, ", not reached");
  }
  const std::optional<absl::Time> at = TimeFromProto(deadline.deadline_at());
  if (!at.has_value()) return what;
  if (*at <= now) return absl::StrCat(what, ", passing now");
  return absl::StrCat(what, ", ", FormatElapsed(*at - now), " left");
}

}  // namespace taskboard::cli
