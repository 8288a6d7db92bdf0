#include "scheduler/engine/runs/default_agent_choice.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/flow/default_agent.h"

namespace taskboard::engine {
namespace {

// Names at most a few of the fields, so a 10,000-task board stays readable.
std::string DescribePaths(const std::vector<std::string>& paths) {
  constexpr size_t kShown = 4;
  if (paths.size() <= kShown) return absl::StrJoin(paths, ", ");
  std::vector<std::string> shown(paths.begin(), paths.begin() + kShown);
  return absl::StrCat(absl::StrJoin(shown, ", "), " and ", paths.size() - kShown, " more");
}

}  // namespace

std::string ChooseDefaultAgent(const std::string& configured,
                               const dispatch::WorkerRegistry& workers) {
  return configured.empty() ? workers.FirstRegisteredAgent() : configured;
}

absl::Status ApplyDefaultAgent(const std::string& configured,
                               const dispatch::WorkerRegistry& workers, v1::FlowSpec* spec) {
  const std::vector<std::string> unset = flow::UnsetAgentPaths(*spec);
  if (unset.empty()) {
    flow::FillFlowDefaults("", spec);
    return absl::OkStatus();
  }
  const std::string agent = ChooseDefaultAgent(configured, workers);
  const std::string fields = DescribePaths(unset);
  if (agent.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "flow '", spec->name(), "' leaves the agent of ", fields,
        " to the scheduler's default agent, and there is none: the scheduler has no "
        "--default-agent and no worker is connected; start a worker (its first agent becomes "
        "the default), start the scheduler with --default-agent NAME, or name `agent` in the "
        "flow"));
  }
  if (!workers.AnyOffers(agent)) {
    std::vector<std::string> offered = workers.OfferedAgents();
    return absl::FailedPreconditionError(absl::StrCat(
        "flow '", spec->name(), "' leaves the agent of ", fields,
        " to the scheduler's default agent '", agent, "' (--default-agent), and no connected ",
        "worker offers it (offered: ", offered.empty() ? "none" : absl::StrJoin(offered, ", "),
        "); start a worker with agent '", agent,
        "', change the scheduler's --default-agent, or name `agent` in the flow"));
  }
  flow::FillFlowDefaults(agent, spec);
  return absl::OkStatus();
}

}  // namespace taskboard::engine
