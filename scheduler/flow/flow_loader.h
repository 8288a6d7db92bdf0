#ifndef TASKBOARD_SCHEDULER_FLOW_FLOW_LOADER_H_
#define TASKBOARD_SCHEDULER_FLOW_FLOW_LOADER_H_

// The one entry point from flow text (or a FlowSpec sent as a proto) to a
// validated FlowSpec:
//
//   text --ParseDslText--> Json --DesugarShorthand--> Json --DecodeFlow-->
//   FlowSpec --ValidateFlow--> FlowSpec
//
// Every stage after parsing collects errors instead of stopping, so one
// INVALID_ARGUMENT lists all of them, each with the path of what the user
// wrote (shorthand paths such as `chain[2]` included).

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"
#include "scheduler/flow/dsl_text.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

// INVALID_ARGUMENT: the text is not JSON/YAML (message with line/column), or
// the flow is invalid (every error, structured in the status payload; see
// flow_errors.h).
absl::StatusOr<v1::FlowSpec> LoadFlowText(absl::string_view text,
                                          DslFormat format = DslFormat::kAuto);

// Same, from an already parsed document.
absl::StatusOr<v1::FlowSpec> LoadFlowJson(const Json& doc);

// Validation alone, for specs submitted as protos. INVALID_ARGUMENT as above.
absl::Status CheckFlowSpec(const v1::FlowSpec& spec);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_FLOW_LOADER_H_
