#include "tools/cli/child_run_snapshots.h"

#include <vector>

#include "tools/cli/run_states.h"

namespace taskboard::cli {

grpc::Status FetchChildRuns(SchedulerClient& client, const v1::Run& run,
                            absl::flat_hash_map<std::string, v1::Run>* children) {
  std::vector<std::string> pending(run.child_run_ids().begin(), run.child_run_ids().end());
  while (!pending.empty()) {
    const std::string id = std::move(pending.back());
    pending.pop_back();
    auto known = children->find(id);
    if (known == children->end() || !IsSettled(known->second.status())) {
      v1::GetRunRequest request;
      request.set_run_id(id);
      v1::GetRunResponse response;
      grpc::Status status = client.Call(&v1::Scheduler::Stub::GetRun, request, &response);
      if (!status.ok()) return status;
      known = children->insert_or_assign(id, std::move(*response.mutable_run())).first;
    }
    for (const std::string& grandchild : known->second.child_run_ids()) {
      pending.push_back(grandchild);
    }
  }
  return grpc::Status::OK;
}

bool ChildRunsUnsettled(const v1::Run& run,
                        const absl::flat_hash_map<std::string, v1::Run>& children) {
  for (const std::string& id : run.child_run_ids()) {
    auto child = children.find(id);
    if (child == children.end() || !IsSettled(child->second.status()) ||
        ChildRunsUnsettled(child->second, children)) {
      return true;
    }
  }
  return false;
}

}  // namespace taskboard::cli
