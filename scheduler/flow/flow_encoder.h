#ifndef TASKBOARD_SCHEDULER_FLOW_FLOW_ENCODER_H_
#define TASKBOARD_SCHEDULER_FLOW_FLOW_ENCODER_H_

// Writes a FlowSpec back as DSL JSON (the inverse of DecodeFlow): what
// `taskboard validate` prints as the desugared flow and what saved flows show.
// Fields at their defaults are left out, so the output reads like a flow a
// person wrote; decoding the result gives the same FlowSpec.

#include "common/json.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

Json EncodeFlow(const v1::FlowSpec& spec);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_FLOW_ENCODER_H_
