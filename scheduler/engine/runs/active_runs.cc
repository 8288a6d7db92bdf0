#include "scheduler/engine/runs/active_runs.h"

#include <utility>

#include "scheduler/flow/kinds/flow_kind.h"
#include "scheduler/policy/effective_policy.h"

namespace taskboard::engine {

ActiveRun& ActiveRuns::Activate(std::unique_ptr<RunState> state, std::unique_ptr<Driver> driver,
                                v1::FlowSpec spec) {
  ActiveRun& active = runs_[state->run_id()];
  active.graph = std::make_unique<RunTaskGraph>(spec, state.get());
  active.policy = policy::EffectivePolicy(spec.flow_policy(), state->record().run().kind());
  // The engine reads only the flow's settings from here (tool cache,
  // webhook, priority, budget): what the kind's driver and the store hold
  // besides (a board's task list) is dropped.
  if (const flow::FlowKindInfo* kind = flow::FindFlowKind(spec);
      kind != nullptr && kind->strip_for_active != nullptr) {
    kind->strip_for_active(&spec);
  }
  active.spec = std::make_shared<const v1::FlowSpec>(std::move(spec));
  active.state = std::move(state);
  active.driver = std::move(driver);
  return active;
}

ActiveRun& ActiveRuns::Replace(std::unique_ptr<RunState> state) {
  const std::string run_id = state->run_id();
  runs_.erase(run_id);
  ActiveRun& active = runs_[run_id];
  active.state = std::move(state);
  return active;
}

std::vector<ActiveRun*> ActiveRuns::ChainUp(ActiveRun& run) {
  std::vector<ActiveRun*> chain = {&run};
  while (!chain.back()->state->record().run().parent_run_id().empty()) {
    ActiveRun* parent = Find(chain.back()->state->record().run().parent_run_id());
    if (parent == nullptr) break;
    chain.push_back(parent);
  }
  return chain;
}

}  // namespace taskboard::engine
