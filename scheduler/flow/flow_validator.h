#ifndef TASKBOARD_SCHEDULER_FLOW_FLOW_VALIDATOR_H_
#define TASKBOARD_SCHEDULER_FLOW_FLOW_VALIDATOR_H_

// Semantic validation of a FlowSpec (docs/semantics.md#validation): ids, required fields
// per phase type, dependencies, cycles (reported as a path), the single final
// phase, and the placeholders that can be checked before a run starts
// (unknown args, unknown or non-upstream steps, {item} outside a map,
// {previous.output} without dependencies). Every error carries the DSL path
// it concerns (`phases[2].dependsOn[0]`), also for specs sent as protos.

#include "absl/strings/string_view.h"
#include "scheduler/flow/flow_errors.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

// Flow names are used on command lines and as saved-flow keys: a letter or
// digit, then letters, digits, '_', '-' and '.', at most 128 in all.
// Schedules' names follow the same rule (scheduler/schedules).
bool IsFlowName(absl::string_view name);

// Appends every problem found to `errors`. Paths `errors` marks as broken
// (unusable values found while decoding) are not checked again.
void ValidateFlow(const v1::FlowSpec& spec, FlowErrorList* errors);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_FLOW_VALIDATOR_H_
