#include "tools/cli/task_attempts.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tools/cli/display_format.h"
#include "tools/cli/display_width.h"

namespace taskboard::cli {

std::string FormatEarlierAttempt(const v1::TaskAttempt& attempt) {
  std::string line = absl::StrCat("attempt ", attempt.attempt());
  if (!attempt.worker_id().empty()) absl::StrAppend(&line, " on ", attempt.worker_id());
  absl::StrAppend(
      &line, ": ",
      attempt.ended().empty() ? "ended" : absl::StrReplaceAll(attempt.ended(), {{"_", " "}}));
  // Elapsed runs to `now` without an end; every recorded attempt has one.
  if (attempt.has_started_at() && attempt.has_ended_at()) {
    const std::optional<absl::Duration> took =
        Elapsed(attempt.started_at(), attempt.ended_at(), absl::InfinitePast());
    if (took) absl::StrAppend(&line, " after ", FormatElapsed(*took));
  }
  if (!attempt.detail().empty()) absl::StrAppend(&line, ": ", OneLine(attempt.detail()));
  return line;
}

std::string RenderEarlierAttempts(const v1::Run& run, int width) {
  size_t id_width = 0;
  for (const v1::Task& task : run.tasks()) {
    if (!task.earlier_attempts().empty()) id_width = std::max(id_width, task.task_id().size());
  }
  if (id_width == 0) return "";
  std::string text = "earlier attempts:\n";
  for (const v1::Task& task : run.tasks()) {
    for (const v1::TaskAttempt& attempt : task.earlier_attempts()) {
      absl::StrAppend(&text,
                      FitToWidth(absl::StrCat("  ", PadToWidth(task.task_id(), id_width), "  ",
                                              FormatEarlierAttempt(attempt)),
                                 width),
                      "\n");
    }
  }
  return text;
}

}  // namespace taskboard::cli
