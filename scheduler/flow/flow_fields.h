#ifndef TASKBOARD_SCHEDULER_FLOW_FLOW_FIELDS_H_
#define TASKBOARD_SCHEDULER_FLOW_FLOW_FIELDS_H_

// The fields of a flow document, as the decoder itself reads them: so that
// docs/flow-dsl.md can be checked against the code (a unit test compares
// the two) without a third list that would drift like the doc did.

#include <map>
#include <set>
#include <string>

namespace taskboard::flow {

// Every field name DecodeFlow accepts, by where it may appear: "" (the top
// level), "args.*" (one declared arg), "phases[]", "phases[].branches[]",
// "planAndExecute", "planAndExecute.stepExecutor", "supervisor", "board",
// "board.tasks[]", "flowPolicy" (every policy type's parameters),
// "toolCache", "toolCache.tools.*" (one tool's rule), "budget". Array
// indices in paths are written `[]`.
//
// Found by decoding sample documents that reach every block of the decoder
// under a FieldRecorder (json_reader.h): a field the decoder reads is listed
// without being named here. Every kind's block is sampled from the kind
// table (kinds/flow_kind.h); a new nested block needs a sample here to be
// reached; its parent's field is listed either way.
std::map<std::string, std::set<std::string>> AcceptedFlowFields();

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_FLOW_FIELDS_H_
