#ifndef TASKBOARD_SCHEDULER_FLOW_FANOUT_OUTPUT_H_
#define TASKBOARD_SCHEDULER_FLOW_FANOUT_OUTPUT_H_

// Merges the per-item results of a parallel or map phase into the phase's
// single output (docs/semantics.md#map-and-parallel-phases): a text that downstream prompts read,
// and a JSON array that `{steps.ID.json...}` placeholders index into.

#include <string>
#include <vector>

#include "common/json.h"

namespace taskboard::flow {

// One fanned-out task's result, in the phase's input order.
struct FanOutItem {
  std::string agent;
  std::string output;  // For a failed item, whatever it reported (may be empty).
  bool failed = false;
};

// Each item as `### [i/N] <agent>` (+ ` (failed)`), a blank line, then its
// output; items joined by "\n\n---\n\n". "" for no items.
std::string MergeFanOutText(const std::vector<FanOutItem>& items);

// An array with, per item in order: the JSON found in its output
// (ExtractJson), else its output as a JSON string; null for a failed item.
Json MergeFanOutJson(const std::vector<FanOutItem>& items);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_FANOUT_OUTPUT_H_
