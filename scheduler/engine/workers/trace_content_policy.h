#ifndef TASKBOARD_SCHEDULER_ENGINE_WORKERS_TRACE_CONTENT_POLICY_H_
#define TASKBOARD_SCHEDULER_ENGINE_WORKERS_TRACE_CONTENT_POLICY_H_

// Asked by the dispatcher whether the spans of a tenant's runs may carry
// prompt and completion text, which it tells the worker in the assignment
// (Assignment.trace_content_allowed). The tenant's off switch lives in the
// --llm-limits file (`tenants.NAME.traceContent: false`), which llm/
// reads, so llm/llm_grants.h implements this; an interface here, so the
// dispatcher needs no include of the floor above
// (docs/observability.md#prompt-and-completion-content).

#include <string>

namespace taskboard::engine {

class TraceContentPolicy {
 public:
  virtual ~TraceContentPolicy() = default;
  // Called on the engine loop; must not block. `tenant` "" for a run
  // submitted without a tenant.
  virtual bool TraceContentAllowed(const std::string& tenant) const = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_WORKERS_TRACE_CONTENT_POLICY_H_
