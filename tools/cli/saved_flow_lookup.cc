#include "tools/cli/saved_flow_lookup.h"

#include <filesystem>
#include <sstream>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "tools/cli/rpc_call.h"

namespace taskboard::cli {

bool NamesFlowFile(const std::string& word) {
  if (word == "-") return true;
  for (absl::string_view extension : {".yaml", ".yml", ".json"}) {
    if (absl::EndsWithIgnoreCase(word, extension)) return true;
  }
  std::error_code error;
  return std::filesystem::exists(word, error);
}

int ListAllFlows(SchedulerClient& client, absl::string_view command, v1::ListFlowsResponse* all,
                 std::ostream& err) {
  v1::ListFlowsRequest request;
  do {
    v1::ListFlowsResponse page;
    if (int code =
            CallScheduler(client, command, &v1::Scheduler::Stub::ListFlows, request, &page, err);
        code != 0) {
      return code;
    }
    all->mutable_flows()->MergeFrom(page.flows());
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  return 0;
}

int FetchSavedFlow(SchedulerClient& client, absl::string_view command, const std::string& name,
                   v1::SavedFlow* flow, std::ostream& err) {
  v1::GetFlowRequest request;
  request.set_name(name);
  v1::GetFlowResponse response;
  const grpc::Status status = client.Call(&v1::Scheduler::Stub::GetFlow, request, &response);
  if (status.ok()) {
    *flow = response.flow();
    return 0;
  }
  if (status.error_code() != grpc::StatusCode::NOT_FOUND) {
    return ReportRpcError(command, client.address(), status, err);
  }
  v1::ListFlowsResponse saved;
  std::ostringstream list_err;  // the lookup already failed; a listing error adds nothing
  std::vector<std::string> names;
  if (ListAllFlows(client, command, &saved, list_err) == 0) {
    for (const v1::SavedFlow& each : saved.flows()) names.push_back(each.name());
  }
  err << command << ": no saved flow '" << name << "' on " << client.address()
      << " (saved: " << (names.empty() ? "none" : absl::StrJoin(names, ", "))
      << "); to run a file, give its path (.yaml, .yml or .json); save a flow with "
         "`taskboard flows save FILE`\n";
  return 1;
}

}  // namespace taskboard::cli
