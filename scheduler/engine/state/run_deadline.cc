#include "scheduler/engine/state/run_deadline.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "scheduler/engine/state/task_states.h"

namespace taskboard::engine {

std::optional<v1::RunDeadline> ChooseRunDeadline(const v1::FlowSpec& spec, int32_t caller_seconds,
                                                 v1::RunDeadlineSource caller_source) {
  v1::RunDeadline deadline;
  if (spec.run_timeout_seconds() > 0) {
    deadline.set_timeout_seconds(spec.run_timeout_seconds());
    deadline.set_source(v1::RUN_DEADLINE_SOURCE_FLOW);
  }
  if (caller_seconds > 0 &&
      (deadline.timeout_seconds() == 0 || caller_seconds < deadline.timeout_seconds())) {
    deadline.set_timeout_seconds(caller_seconds);
    deadline.set_source(caller_source);
  }
  if (deadline.timeout_seconds() == 0) return std::nullopt;
  return deadline;
}

void StartRunDeadline(v1::RunDeadline& deadline, int64_t start_ms) {
  *deadline.mutable_deadline_at() =
      ToTimestamp(start_ms + static_cast<int64_t>(deadline.timeout_seconds()) * 1000);
}

int64_t RunDeadlineMs(const v1::Run& run) {
  if (!run.has_deadline() || run.deadline().timeout_seconds() <= 0) return 0;
  return ToUnixMs(run.deadline().deadline_at());
}

std::string RunDeadlineSourceWord(v1::RunDeadlineSource source) {
  if (source == v1::RUN_DEADLINE_SOURCE_UNSPECIFIED) return "unknown";
  return absl::AsciiStrToLower(
      absl::StripPrefix(v1::RunDeadlineSource_Name(source), "RUN_DEADLINE_SOURCE_"));
}

std::string RunDeadlinePassed(const v1::RunDeadline& deadline) {
  return absl::StrCat("run deadline ", deadline.timeout_seconds(), "s (",
                      RunDeadlineSourceWord(deadline.source()), ") passed");
}

}  // namespace taskboard::engine
