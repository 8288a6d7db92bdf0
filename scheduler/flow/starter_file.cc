#include "scheduler/flow/starter_file.h"

#include <optional>

#include "absl/strings/ascii.h"
#include "common/utf8.h"
#include "scheduler/flow/dsl_text.h"
#include "scheduler/flow/flow_validator.h"

namespace taskboard::flow {

absl::StatusOr<Json> ParseStarterText(absl::string_view text, absl::string_view kind,
                                      size_t max_bytes) {
  if (absl::StripAsciiWhitespace(text).empty()) {
    return absl::InvalidArgumentError(absl::StrCat(kind, " text is empty: expected a YAML or JSON ",
                                                   kind, " (docs/schedules.md)"));
  }
  if (text.size() > max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(kind, " text is ", text.size(),
                                                   " bytes; at most ", max_bytes, " are accepted"));
  }
  if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
    return absl::InvalidArgumentError(absl::StrCat(
        kind, " text is not valid UTF-8 (first bad byte at offset ", *bad, "): save it as UTF-8"));
  }
  return ParseDslText(text);
}

std::string ReadStarterName(JsonReader& reader, absl::string_view key, absl::string_view what,
                            FlowErrorList* errors) {
  std::optional<std::string> name = reader.String(key);
  if (!name) {
    errors->Add(std::string(key), absl::StrCat("missing ", what));
  } else if (!IsFlowName(*name)) {
    errors->Add(std::string(key), absl::StrCat(what, " '", *name,
                                               "' must start with a letter or digit and use only "
                                               "letters, digits, '_', '-' and '.' (at most 128)"));
  }
  return name.value_or("");
}

}  // namespace taskboard::flow
