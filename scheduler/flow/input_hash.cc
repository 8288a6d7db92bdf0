#include "scheduler/flow/input_hash.h"

#include <algorithm>

#include "common/canonical_json.h"
#include "common/json.h"
#include "common/sha256.h"

namespace taskboard::flow {

std::string PhaseInputHash(const PhaseInputs& inputs) {
  std::vector<std::string> tools = inputs.tools;
  std::sort(tools.begin(), tools.end());
  const Json doc = {{"agent", inputs.agent},
                    {"model", inputs.model},
                    {"tools", tools},
                    {"tasks", inputs.tasks},
                    // Bumped if the meaning of the fields above ever changes,
                    // so old runs re-execute instead of reusing stale output.
                    {"v", 1}};
  return Sha256Hex(CanonicalJson(doc));
}

}  // namespace taskboard::flow
