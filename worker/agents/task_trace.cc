#include "worker/agents/task_trace.h"

#include "common/otel/traceparent.h"

namespace taskboard::worker {

std::vector<std::pair<std::string, std::string>> TaskTrace::Environment() const {
  std::vector<std::pair<std::string, std::string>> vars;
  if (!attempt_.IsValid()) return vars;
  vars.emplace_back("TRACEPARENT", otel::FormatTraceparent(attempt_));
  if (!attempt_.trace_state.empty()) vars.emplace_back("TRACESTATE", attempt_.trace_state);
  return vars;
}

}  // namespace taskboard::worker
