#include "common/observation_line.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace taskboard {
namespace {

std::string OneLine(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"\r\n", "\\n"}, {"\n", "\\n"}, {"\r", "\\n"}});
}

}  // namespace

std::string FormatObservationLine(const ObservationText& observation,
                                  absl::string_view current_run_id) {
  std::string line = "- ";
  if (!observation.task_id.empty()) {
    const bool other_run = !observation.run_id.empty() && !current_run_id.empty() &&
                           observation.run_id != current_run_id;
    absl::StrAppend(&line, "[", other_run ? OneLine(observation.run_id) + "/" : "",
                    OneLine(observation.task_id), "] ");
  }
  absl::StrAppend(&line, OneLine(observation.tool_name), "(", OneLine(observation.args_json),
                  ") -> ");
  if (!observation.error.empty()) {
    absl::StrAppend(&line, "ERROR: ", OneLine(observation.error));
  } else if (observation.result_json.empty()) {
    absl::StrAppend(&line, "null");
  } else {
    absl::StrAppend(&line, OneLine(observation.result_json));
  }
  if (observation.cached) absl::StrAppend(&line, " (cached)");
  return line;
}

}  // namespace taskboard
