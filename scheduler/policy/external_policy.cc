#include "scheduler/policy/external_policy.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/policy/policy_names.h"
#include "scheduler/policy/prior_work_builder.h"
#include "scheduler/policy/prior_work_policy.h"
#include "scheduler/policy/selectors.h"
#include "scheduler/policy/token_estimate.h"

namespace taskboard::policy {
namespace {

v1::PolicyTaskView TaskViewFromGraph(const PolicyInput& input) {
  v1::PolicyTaskView view;
  view.set_run_id(input.task.run_id);
  view.set_task_id(input.task.task_id);
  for (const TaskKey& dep : DeclaredDeps(input.graph, input.task)) {
    view.add_deps(dep.run_id == input.task.run_id ? dep.task_id
                                                  : absl::StrCat(dep.run_id, "/", dep.task_id));
  }
  // It is about to be dispatched.
  view.set_state(v1::TASK_STATE_READY);
  return view;
}

}  // namespace

bool IsExternalPolicy(const v1::FlowPolicy& policy) {
  return policy.policy_case() == v1::FlowPolicy::kCustom && !policy.custom().external().empty();
}

v1::SelectPriorWorkRequest BuildExternalRequest(const PolicyInput& input,
                                                const std::vector<v1::PolicyTaskView>& tasks,
                                                int max_candidates) {
  v1::SelectPriorWorkRequest request;
  request.set_run_id(input.task.run_id);
  request.set_root_run_id(input.ledger.root_run_id().empty() ? input.task.run_id
                                                             : input.ledger.root_run_id());
  auto own = std::find_if(tasks.begin(), tasks.end(), [&](const v1::PolicyTaskView& view) {
    return view.run_id() == input.task.run_id && view.task_id() == input.task.task_id;
  });
  *request.mutable_task() = own != tasks.end() ? *own : TaskViewFromGraph(input);
  request.mutable_tasks()->Assign(tasks.begin(), tasks.end());
  const std::vector<int64_t> candidates = RecentSeqs(input.ledger, std::max(0, max_candidates));
  std::vector<v1::Observation> observations = input.ledger.ReadOrKeepError(candidates);
  request.mutable_ledger()->Reserve(static_cast<int>(observations.size()));
  for (v1::Observation& observation : observations) {
    *request.add_ledger() = std::move(observation);
  }
  return request;
}

v1::PriorWork ApplyExternalResponse(const v1::SelectPriorWorkResponse& response,
                                    const PolicyInput& input) {
  std::vector<int64_t> seqs;
  seqs.reserve(static_cast<size_t>(response.seqs_size()));
  for (int64_t seq : response.seqs()) {
    if (seq >= 1 && seq <= input.ledger.size()) seqs.push_back(seq);
  }
  SortUnique(seqs);
  const TokenBounded selection = BoundByTokens(input.ledger, std::move(seqs), 0);
  v1::PriorWork prior_work = MakePriorWork(kPolicyCustom, input.ledger, selection);
  prior_work.set_narrative(response.narrative());
  prior_work.mutable_meta()->set_tokens_approx(selection.tokens +
                                               EstimateTextTokens(response.narrative()));
  return prior_work;
}

v1::PriorWork FallbackPriorWork(const PolicyInput& input, std::string reason) {
  v1::FlowPolicy declared_deps_only;
  declared_deps_only.mutable_declared_deps_only();
  v1::PriorWork prior_work = SelectPriorWork(declared_deps_only, input);
  prior_work.mutable_meta()->set_fallback_reason(std::move(reason));
  return prior_work;
}

}  // namespace taskboard::policy
