#ifndef TASKBOARD_COMMON_JSON_DEPTH_FLAG_H_
#define TASKBOARD_COMMON_JSON_DEPTH_FLAG_H_

// --max-json-depth (TASKBOARD_MAX_JSON_DEPTH), declared the same way by every
// binary that parses JSON or YAML from others: the scheduler, the worker, the
// taskboard CLI and tools/fake-llm. Header-only so taskboard_common, which
// the fuzzers link, stays free of CLI11.

#include <string>

#include "CLI/CLI.hpp"
#include "common/json_depth.h"

namespace taskboard {

// Sets the process-wide limit (common/json_depth.h) while `app` parses; a
// value outside [1, kMaxJsonDepthCeiling] is a usage error.
inline CLI::Option* AddJsonDepthFlag(CLI::App& app) {
  return app
      .add_option_function<int>(
          "--max-json-depth", [](const int& depth) { (void)SetMaxJsonDepth(depth); },
          "Deepest nesting of arrays/objects accepted in any JSON or YAML document "
          "(flows, args, outputs, tool results, model replies)")
      ->envname("TASKBOARD_MAX_JSON_DEPTH")
      ->check(CLI::Range(1, kMaxJsonDepthCeiling))
      ->default_str(std::to_string(kDefaultMaxJsonDepth));
}

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_JSON_DEPTH_FLAG_H_
