#ifndef TASKBOARD_TOOLS_CLI_FLOW_ERROR_REPORT_H_
#define TASKBOARD_TOOLS_CLI_FLOW_ERROR_REPORT_H_

// The one way the CLI shows a list of flow errors, whether the flow core found
// them locally (`validate`, `run`, `flows save` before any network call) or
// the scheduler returned them as FlowErrors details:
//
//   flows/digest.yaml: invalid flow (2 errors)
//     phases[1].dependsOn[0]: unknown phase 'discovr'
//     (flow): more than one final phase

#include <ostream>

#include "absl/strings/string_view.h"
#include "taskboard/v1/common.pb.h"

namespace taskboard::cli {

// `subject` names what was checked (a path, or the command), `what` the kind of
// problem ("invalid flow", "invalid run args").
void PrintFlowErrors(absl::string_view subject, absl::string_view what,
                     const v1::FlowErrors& errors, std::ostream& err);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_FLOW_ERROR_REPORT_H_
