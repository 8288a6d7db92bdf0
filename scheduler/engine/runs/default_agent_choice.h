#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_DEFAULT_AGENT_CHOICE_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_DEFAULT_AGENT_CHOICE_H_

// Which agent runs what a submitted flow leaves without one
// (flow/default_agent.h, docs/decisions.md 77): the scheduler's
// --default-agent, else the first registered agent of the connected workers.
// Decided at submit so the stored spec names it, and refused at submit when
// no connected worker offers it, instead of a task waiting out the
// scheduling timeout for an agent nobody chose.

#include <string>

#include "absl/status/status.h"
#include "scheduler/dispatch/worker_registry.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::engine {

// `configured` (--default-agent) when set, else workers.FirstRegisteredAgent().
std::string ChooseDefaultAgent(const std::string& configured,
                               const dispatch::WorkerRegistry& workers);

// Fills `spec`'s defaults with the chosen agent. FAILED_PRECONDITION, naming
// the agent, the fields that left it out and what to do, when the flow
// leaves an agent out and no connected worker offers the default (or there
// is no default: no --default-agent and no worker); `spec` is then
// unchanged.
absl::Status ApplyDefaultAgent(const std::string& configured,
                               const dispatch::WorkerRegistry& workers, v1::FlowSpec* spec);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_DEFAULT_AGENT_CHOICE_H_
