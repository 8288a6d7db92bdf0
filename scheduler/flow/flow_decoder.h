#ifndef TASKBOARD_SCHEDULER_FLOW_FLOW_DECODER_H_
#define TASKBOARD_SCHEDULER_FLOW_FLOW_DECODER_H_

// Turns a (desugared) flow document into a FlowSpec, field by field. Shape
// problems (wrong types, unknown fields, unknown phase types, a null phase)
// are recorded with their JSON path; decoding always continues so that one
// submission reports every problem. Semantic checks (ids, dependencies,
// cycles, placeholders) belong to flow_validator.h.
//
// Kinds: `kind: taskflow|plan_and_execute|supervisor|board`, or implied by
// the presence of a `planAndExecute`, `supervisor` or `board` block; a flow
// with neither is a taskflow (`phases`, `concurrency` at the top level).

#include <cstdint>

#include "common/json.h"
#include "scheduler/flow/flow_errors.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

// Timeouts are seconds; a week bounds typos like 60000 meant as ms.
inline constexpr int64_t kMaxTimeoutSeconds = 7 * 24 * 3600;
// A whole run's deadline (runTimeoutSeconds, SubmitRun's, a schedule's): a
// run waiting days for approvals may still need one, so 30 days at most.
inline constexpr int64_t kMaxRunTimeoutSeconds = 30 * 24 * 3600;

v1::FlowSpec DecodeFlow(const Json& doc, FlowErrorList* errors);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_FLOW_DECODER_H_
