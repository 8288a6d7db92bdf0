#ifndef TASKBOARD_COMMON_YAML_JSON_H_
#define TASKBOARD_COMMON_YAML_JSON_H_

// YAML text as a Json value, so one decoder reads JSON and YAML alike: flow
// files (scheduler/flow/dsl_text.h) and agent files / Markdown frontmatter
// (worker/agents/agent_file.h). Plain scalars follow the YAML 1.2 core
// schema (`600` is a number, `true` a bool, `~` null); quoted scalars stay
// strings.

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard {

// INVALID_ARGUMENT naming the line and column of a syntax error, or a
// non-scalar mapping key. Empty text is null.
absl::StatusOr<Json> ParseYamlAsJson(absl::string_view text);

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_YAML_JSON_H_
