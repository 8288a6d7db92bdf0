#include "scheduler/flow/approval_routes.h"

#include <algorithm>
#include <set>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "scheduler/flow/approval_phase.h"
#include "scheduler/flow/json_reader.h"
#include "scheduler/flow/phase_graph.h"

namespace taskboard::flow {

bool RoutesRejection(const v1::Phase& phase) {
  return phase.has_approval() && !phase.approval().on_reject().empty();
}

std::string RouteSkipReason(const v1::Phase& approval, const ApprovalOutcome& outcome,
                            bool on_route) {
  if (!RoutesRejection(approval)) return "";
  const bool completed = outcome.completed;
  const bool rejected = completed && outcome.rejected;
  if (on_route) {
    // Approved, or an optional approval that failed: the route is not taken.
    // A required one that failed skips its dependents as usual.
    if (rejected || (!completed && !approval.is_optional())) return "";
    return absl::StrCat("runs only when '", approval.id(), "' rejects");
  }
  if (!rejected) return "";
  return absl::StrCat("approval '", approval.id(), "' ", outcome.reason);
}

void ValidateApprovalRoutes(const v1::TaskflowSpec& flow, FlowErrorList* errors) {
  absl::flat_hash_map<std::string, int> index_of;
  for (int i = 0; i < flow.phases_size(); ++i) index_of.emplace(flow.phases(i).id(), i);
  for (int i = 0; i < flow.phases_size(); ++i) {
    const v1::Phase& phase = flow.phases(i);
    const std::string path = IndexPath("phases", i);
    if (!RoutesRejection(phase) || errors->IsBroken(path)) continue;
    const std::string list_path = JoinPath(ApprovalFieldsPath(phase, path), "onReject");
    std::set<std::string> seen;
    for (int r = 0; r < phase.approval().on_reject_size(); ++r) {
      const std::string& id = phase.approval().on_reject(r);
      const std::string at = IndexPath(list_path, r);
      auto target = index_of.find(id);
      if (id == phase.id()) {
        errors->Add(at, absl::StrCat("'", id,
                                     "' is this approval itself; name the phases that run when "
                                     "it rejects (they depend on it)"));
      } else if (target == index_of.end()) {
        errors->Add(at, absl::StrCat("unknown phase '", id, "'; name a phase that depends on '",
                                     phase.id(), "'"));
      } else if (!seen.insert(id).second) {
        errors->Add(at, absl::StrCat("duplicate phase '", id, "'"));
      } else {
        const std::vector<std::string> deps = PhaseDependencies(flow.phases(target->second));
        if (std::find(deps.begin(), deps.end(), phase.id()) == deps.end()) {
          errors->Add(
              at, absl::StrCat("phase '", id, "' does not depend on '", phase.id(), "': add '",
                               phase.id(), "' to its dependsOn, so it runs after the decision"));
        }
      }
    }
  }
}

}  // namespace taskboard::flow
