#ifndef TASKBOARD_SCHEDULER_FLOW_DSL_TEXT_H_
#define TASKBOARD_SCHEDULER_FLOW_DSL_TEXT_H_

// Reads flow DSL text (JSON or YAML) into a JSON document. YAML is accepted
// with the same shape as JSON; both end up as the same Json value, so every
// later stage (shorthand, decoding, validation) sees one representation.

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard::flow {

enum class DslFormat {
  kAuto,  // text whose first non-blank character is `{` is JSON, else YAML
  kJson,
  kYaml,
};

// INVALID_ARGUMENT when the text is empty or not well-formed; the message
// names the format and the line/column of the problem.
absl::StatusOr<Json> ParseDslText(absl::string_view text, DslFormat format = DslFormat::kAuto);

// Format from a file name: .json -> kJson, .yaml/.yml -> kYaml, else kAuto.
DslFormat DslFormatFromPath(absl::string_view path);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_DSL_TEXT_H_
