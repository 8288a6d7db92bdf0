#ifndef TASKBOARD_SCHEDULER_FLOW_STARTER_FILE_H_
#define TASKBOARD_SCHEDULER_FLOW_STARTER_FILE_H_

// The frame of a starter file: a YAML or JSON file that names a saved flow
// and says when to start runs of it, a schedule
// (scheduler/schedules/schedule_decoder.h; docs/schedules.md#a-schedule-file)
// or a trigger (scheduler/triggers/trigger_decoder.h;
// docs/schedules.md#a-trigger-file). Both are read the same way up to their
// own fields: the text's checks, an object with a name, every problem
// collected with its path, unknown fields refused. That frame is here once
// so the two files keep the same rules and messages; each decoder reads
// only its own fields.

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/json.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/json_reader.h"

namespace taskboard::flow {

// The document in `text`, a `kind` file ("schedule", "trigger").
// INVALID_ARGUMENT: the text is empty, larger than `max_bytes`, not UTF-8,
// or not JSON/YAML (line and column).
absl::StatusOr<Json> ParseStarterText(absl::string_view text, absl::string_view kind,
                                      size_t max_bytes);

// The text at `key`, a name such as a flow's (flow_validator.h's
// IsFlowName); "" with an error at `key` naming it `what` when it is
// missing or not such a name.
std::string ReadStarterName(JsonReader& reader, absl::string_view key, absl::string_view what,
                            FlowErrorList* errors);

// `doc`, a `kind` file, as a Definition (a struct with `std::string name`):
// the name first, then `read_fields(reader, definition, errors)` reads the
// kind's own fields with the reader, then fields nobody read are refused.
// INVALID_ARGUMENT "<kind> is invalid" with every problem (flow_errors.h's
// payload); a `doc` that is not an object is the one problem, "a <kind>
// must be an object with <required>".
template <typename Definition, typename ReadFields>
absl::StatusOr<Definition> DecodeStarterFile(const Json& doc, absl::string_view kind,
                                             absl::string_view required, ReadFields read_fields) {
  FlowErrorList errors;
  Definition definition;
  if (!doc.is_object()) {
    errors.Add("", absl::StrCat("a ", kind, " must be an object with ", required, " (got ",
                                DescribeJsonType(doc), ")"));
    return errors.ToStatus(absl::StrCat(kind, " is invalid"));
  }
  JsonReader reader(doc, "", &errors);
  definition.name = ReadStarterName(reader, "name", absl::StrCat(kind, " name"), &errors);
  read_fields(reader, definition, &errors);
  reader.RejectUnknownFields();
  if (!errors.empty()) return errors.ToStatus(absl::StrCat(kind, " is invalid"));
  return definition;
}

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_STARTER_FILE_H_
