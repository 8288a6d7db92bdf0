#ifndef TASKBOARD_WORKER_AGENTS_YAML_JSON_H_
#define TASKBOARD_WORKER_AGENTS_YAML_JSON_H_

// YAML text (agent files, Markdown frontmatter) as a Json value, so one
// decoder reads JSON, YAML and Markdown agent files alike. Plain scalars
// follow the YAML 1.2 core schema (`600` is a number, `true` a bool, `~`
// null); quoted scalars stay strings.
//
// TODO(lead): scheduler/flow/dsl_text.cc has the same conversion; move this
// to common/ (with yaml-cpp on taskboard_common) and let both call it.

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard::worker {

// INVALID_ARGUMENT naming the line and column of a syntax error, or a
// non-scalar mapping key. Empty text is null.
absl::StatusOr<Json> ParseYamlAsJson(absl::string_view text);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_YAML_JSON_H_
