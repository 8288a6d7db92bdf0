#include "scheduler/policy/prior_work_policy.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "scheduler/policy/compaction.h"
#include "scheduler/policy/effective_policy.h"
#include "scheduler/policy/external_policy.h"
#include "scheduler/policy/policy_names.h"
#include "scheduler/policy/prior_work_builder.h"
#include "scheduler/policy/selectors.h"
#include "scheduler/policy/token_estimate.h"

namespace taskboard::policy {
namespace {

v1::PriorWork Select(absl::string_view name, const PolicyInput& input, std::vector<int64_t> seqs,
                     int64_t max_tokens) {
  return MakePriorWork(name, input.ledger,
                       BoundByTokens(input.ledger, std::move(seqs), max_tokens));
}

std::vector<int64_t> CustomSeqs(const v1::CustomPolicy& custom, const PolicyInput& input) {
  const RequestLedger& ledger = input.ledger;
  std::vector<int64_t> seqs;
  auto add = [&seqs](absl::Span<const int64_t> more) {
    seqs.insert(seqs.end(), more.begin(), more.end());
  };
  if (custom.deps()) add(SeqsOfTasks(ledger, DeclaredDeps(input.graph, input.task)));
  if (custom.ancestors()) add(SeqsOfTasks(ledger, UpstreamClosure(input.graph, input.task)));
  if (custom.errors()) add(ledger.ErrorSeqs());
  absl::flat_hash_set<std::string> tools_seen;
  for (const std::string& tool : custom.tools()) {
    if (tools_seen.insert(tool).second) add(ledger.SeqsOfTool(tool));
  }
  if (custom.recent() > 0) add(RecentSeqs(ledger, custom.recent()));
  SortUnique(seqs);
  return seqs;
}

}  // namespace

v1::PriorWork SelectPriorWork(const v1::FlowPolicy& policy, const PolicyInput& input) {
  const RequestLedger& ledger = input.ledger;
  switch (policy.policy_case()) {
    case v1::FlowPolicy::kNone:
      return Select(kPolicyNone, input, {}, 0);
    case v1::FlowPolicy::kAncestors: {
      const std::vector<TaskKey> tasks = policy.ancestors().transitive()
                                             ? UpstreamClosure(input.graph, input.task)
                                             : DeclaredDeps(input.graph, input.task);
      return Select(kPolicyAncestors, input, SeqsOfTasks(ledger, tasks), 0);
    }
    case v1::FlowPolicy::kRecentTrajectory: {
      const v1::RecentTrajectoryPolicy& recent = policy.recent_trajectory();
      return Select(kPolicyRecentTrajectory, input, RecentSeqs(ledger, EffectiveRecentN(recent)),
                    recent.max_tokens());
    }
    case v1::FlowPolicy::kAllCompleted:
      return Select(kPolicyAllCompleted, input,
                    SeqsOfTasks(ledger, CompletedTasks(ledger, input.graph)),
                    policy.all_completed().max_tokens());
    case v1::FlowPolicy::kCompact:
      return ComposeCompact(policy.compact(), input, "");
    case v1::FlowPolicy::kCustom:
      if (IsExternalPolicy(policy)) {
        return FallbackPriorWork(input,
                                 "custom.external is selected by the scheduler's PolicyService "
                                 "call, not by SelectPriorWork");
      }
      return Select(kPolicyCustom, input, CustomSeqs(policy.custom(), input),
                    policy.custom().max_tokens());
    case v1::FlowPolicy::kDeclaredDepsOnly:
    case v1::FlowPolicy::POLICY_NOT_SET:
      break;
  }
  return Select(kPolicyDeclaredDepsOnly, input,
                SeqsOfTasks(ledger, DeclaredDeps(input.graph, input.task)), 0);
}

}  // namespace taskboard::policy
