#include "scheduler/flow/flow_loader.h"

#include "scheduler/flow/flow_decoder.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/flow_validator.h"
#include "scheduler/flow/shorthand.h"

namespace taskboard::flow {

absl::StatusOr<v1::FlowSpec> LoadFlowText(absl::string_view text, DslFormat format) {
  absl::StatusOr<Json> doc = ParseDslText(text, format);
  if (!doc.ok()) {
    // Syntax errors carry the same structured details as every other flow error.
    FlowErrorList errors;
    errors.Add("", std::string(doc.status().message()));
    return errors.ToStatus();
  }
  return LoadFlowJson(*doc);
}

absl::StatusOr<v1::FlowSpec> LoadFlowJson(const Json& doc) {
  const DesugaredFlow desugared = DesugarShorthand(doc);
  FlowErrorList errors;
  v1::FlowSpec spec = DecodeFlow(desugared.doc, &errors);
  ValidateFlow(spec, &errors);
  if (errors.empty()) return spec;
  if (desugared.path_aliases.empty()) return errors.ToStatus();
  FlowErrorList rewritten;
  for (const v1::FlowError& error : errors.proto().errors()) {
    rewritten.Add(OriginalPath(error.path(), desugared.path_aliases), error.message());
  }
  return rewritten.ToStatus();
}

absl::Status CheckFlowSpec(const v1::FlowSpec& spec) {
  FlowErrorList errors;
  ValidateFlow(spec, &errors);
  return errors.ToStatus();
}

}  // namespace taskboard::flow
