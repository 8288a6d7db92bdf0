#ifndef TASKBOARD_SCHEDULER_FLOW_GATE_VERDICT_H_
#define TASKBOARD_SCHEDULER_FLOW_GATE_VERDICT_H_

// Reads a gate agent's decision from its output (docs/semantics.md#gates).
//
// Agents answer in JSON or in prose with a `VERDICT: X` line, so both are
// accepted. A gate that says nothing recognisable passes (fail-open): a
// chatty reviewer should not halt a run, and the missing verdict is recorded
// in the reason so it shows in the run's history.

#include <string>

#include "absl/strings/string_view.h"

namespace taskboard::flow {

struct GateVerdict {
  bool pass = true;
  // Why the gate decided so: the agent's `reason`, the text after a VERDICT
  // line, or "no verdict found".
  std::string reason;
  // False when neither JSON nor a VERDICT line decided (fail-open).
  bool found = false;
};

// In order:
//   1. JSON (whole or embedded, see ExtractJson) that is an object: boolean
//      `continue`, else boolean `pass`, decides; else a string `verdict`
//      blocks iff one of its words is block|fail|stop|reject|halt|no
//      (case-insensitive). `reason` is kept when it is a string. An object
//      with none of the three falls through to 2.
//   2. The last `VERDICT: X` or `VERDICT = X` (case-insensitive, markdown
//      emphasis around VERDICT and X tolerated), X one of PASS|OK (pass) or
//      BLOCK|FAIL|STOP|REJECT|HALT (block). The reason is the rest of that
//      line, or the next non-empty line when the rest is empty.
//   3. Pass with found=false and reason "no verdict found".
GateVerdict ParseGateVerdict(absl::string_view output);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_GATE_VERDICT_H_
