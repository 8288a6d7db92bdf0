#include "scheduler/flow/flow_errors.h"

#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "common/utf8.h"

namespace taskboard::flow {

void FlowErrorList::Add(std::string path, std::string message) {
  // Messages quote user input; proto strings must be valid UTF-8 to parse back.
  if (FindInvalidUtf8(path)) path = ToValidUtf8(path);
  if (FindInvalidUtf8(message)) message = ToValidUtf8(message);
  if (!seen_.insert(absl::StrCat(path, "\n", message)).second) return;
  v1::FlowError* error = errors_.add_errors();
  error->set_path(std::move(path));
  error->set_message(std::move(message));
}

absl::Status FlowErrorList::ToStatus(absl::string_view what) const {
  if (empty()) return absl::OkStatus();
  std::string message = absl::StrCat(what, " (", size(), size() == 1 ? " error" : " errors", "):");
  for (const v1::FlowError& error : errors_.errors()) {
    absl::StrAppend(&message, "\n  ", FormatFlowError(error));
  }
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kFlowErrorsPayloadUrl, absl::Cord(errors_.SerializeAsString()));
  return status;
}

v1::FlowErrors FlowErrorsFromStatus(const absl::Status& status) {
  v1::FlowErrors errors;
  if (auto payload = status.GetPayload(kFlowErrorsPayloadUrl)) {
    errors.ParseFromString(std::string(*payload));
  }
  return errors;
}

std::string FormatFlowError(const v1::FlowError& error) {
  if (error.path().empty()) return error.message();
  return absl::StrCat(error.path(), ": ", error.message());
}

}  // namespace taskboard::flow
