#include "scheduler/triggers/dedupe_key.h"

#include "absl/strings/str_cat.h"
#include "common/sha256.h"

namespace taskboard::triggers {

absl::StatusOr<std::optional<std::string>> DedupeKey(const std::string& trigger,
                                                     const DedupeSource& source,
                                                     const Event& event) {
  if (!source.enabled()) return std::nullopt;
  std::string value;
  if (!source.header.empty()) {
    value = event.Header(source.header);
    if (value.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("the dedupe header ", source.header,
                                                     " is missing; send it (GitHub always does)"));
    }
  } else {
    const Json* field = source.path->Find(event.payload);
    if (field == nullptr || field->is_null() || field->is_object() || field->is_array()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the dedupe field ", source.path->text(),
                       field == nullptr ? " is not in the payload" : " is not a single value"));
    }
    value = field->is_string() ? field->get<std::string>() : DumpJson(*field);
  }
  if (value.size() > kMaxDedupeValueBytes) value = Sha256Hex(value);
  return absl::StrCat("trigger:", trigger, ":", value);
}

}  // namespace taskboard::triggers
