#include "worker/agents/prior_work_format.h"

#include "absl/strings/str_cat.h"
#include "common/observation_line.h"

namespace taskboard::worker {

std::string FormatPriorWork(const v1::PriorWork& prior_work, absl::string_view current_run_id) {
  std::string lines;
  for (const v1::Observation& obs : prior_work.observations()) {
    if (!lines.empty()) lines += '\n';
    lines += FormatObservation(obs, current_run_id);
  }
  if (prior_work.narrative().empty()) return lines;
  std::string text = absl::StrCat("Summary of earlier work:\n", prior_work.narrative());
  if (!lines.empty()) absl::StrAppend(&text, "\n\nMost recent tool calls:\n", lines);
  return text;
}

}  // namespace taskboard::worker
