#include "scheduler/flow/input_hash.h"

#include <algorithm>

#include "common/canonical_json.h"
#include "common/sha256.h"

namespace taskboard::flow {

std::string PhaseInputHash(const PhaseInputs& inputs) {
  std::vector<const std::string*> tools;
  tools.reserve(inputs.tools.size());
  for (const std::string& tool : inputs.tools) tools.push_back(&tool);
  std::sort(tools.begin(), tools.end(),
            [](const std::string* a, const std::string* b) { return *a < *b; });
  // The canonical JSON of {"agent", "model", "tasks", "tools", "v": 1}, keys in
  // their sorted order, written directly: a board starts a phase per task, and
  // building and sorting a JSON document for each was a tenth of SubmitRun.
  // "v" is bumped if the meaning of the fields ever changes, so old runs
  // re-execute instead of reusing stale output.
  std::string text = "{\"agent\":";
  AppendCanonicalJsonString(inputs.agent, text);
  text += ",\"model\":";
  AppendCanonicalJsonString(inputs.model, text);
  text += ",\"tasks\":[";
  for (size_t i = 0; i < inputs.tasks.size(); ++i) {
    if (i > 0) text += ',';
    AppendCanonicalJsonString(inputs.tasks[i], text);
  }
  text += "],\"tools\":[";
  for (size_t i = 0; i < tools.size(); ++i) {
    if (i > 0) text += ',';
    AppendCanonicalJsonString(*tools[i], text);
  }
  text += "],\"v\":1}";
  return Sha256Hex(text);
}

}  // namespace taskboard::flow
