#include "scheduler/flow/flow_loader.h"

#include <string>
#include <utility>
#include <vector>

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

namespace {

// `aliases` map paths in `doc` back to the submitted text (shorthand.h).
absl::StatusOr<v1::FlowSpec> DecodeAndValidate(
    const Json& doc, const std::vector<std::pair<std::string, std::string>>& aliases) {
  FlowErrorList errors;
  v1::FlowSpec spec = DecodeFlow(doc, &errors);
  ValidateFlow(spec, &errors);
  if (errors.empty()) return spec;
  if (aliases.empty()) return errors.ToStatus();
  FlowErrorList rewritten;
  for (const v1::FlowError& error : errors.proto().errors()) {
    rewritten.Add(OriginalPath(error.path(), aliases), error.message());
  }
  return rewritten.ToStatus();
}

}  // namespace

absl::StatusOr<v1::FlowSpec> LoadFlowJson(const Json& doc) {
  // Desugaring copies the document: a 10,000-task board was copied whole
  // although it has no shorthand to expand.
  if (!HasShorthand(doc)) return DecodeAndValidate(doc, {});
  const DesugaredFlow desugared = DesugarShorthand(doc);
  return DecodeAndValidate(desugared.doc, desugared.path_aliases);
}

absl::Status CheckFlowSpec(const v1::FlowSpec& spec) {
  FlowErrorList errors;
  ValidateFlow(spec, &errors);
  return errors.ToStatus();
}

}  // namespace taskboard::flow
