#ifndef TASKBOARD_SCHEDULER_FLOW_RUN_ARGS_H_
#define TASKBOARD_SCHEDULER_FLOW_RUN_ARGS_H_

// Binds the argument values of a run to the flow's declared args.
//
// Taskboard enforces what pi-taskflow only declares: a `required` arg with no
// value and no default fails the submission, and so does an undeclared arg
// (a typo would otherwise leave a placeholder unresolved mid-run).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

// The args object a run executes with: `given` values, then defaults, in
// declaration order. INVALID_ARGUMENT (every problem, with paths
// `args.NAME`) when `given` is not an object, names an undeclared arg, or
// leaves a required arg without value.
absl::StatusOr<Json> BindRunArgs(const v1::FlowSpec& spec, const Json& given);

// Args from a command line: one JSON object (`'{"dir": "src"}'`), `key=value`
// pairs (values stay strings), or a single positional value for the first
// declared arg. INVALID_ARGUMENT when the forms are mixed or a positional
// value has no arg to bind to.
absl::StatusOr<Json> ParseCliArgs(const std::vector<std::string>& values, const v1::FlowSpec& spec);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_RUN_ARGS_H_
