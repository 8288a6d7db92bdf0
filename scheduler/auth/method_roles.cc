#include "scheduler/auth/method_roles.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace taskboard::auth {
namespace {

constexpr absl::string_view kScheduler = "/taskboard.v1.Scheduler/";
constexpr absl::string_view kWorkerGateway = "/taskboard.v1.WorkerGateway/";

// The client API's methods; the operator ones (admin only) are apart. A
// client token reads its own tenant's audit records only (docs/audit.md).
constexpr absl::string_view kClientMethods[] = {
    "SubmitRun", "GetRun", "ListRuns", "WatchRun", "CancelRun", "ResumeRun", "ValidateFlow",
    "SaveFlow", "GetFlow", "ListFlows", "DeleteFlow", "GetTask", "GetUsage", "ListApprovals",
    "DecideApproval", "GetCacheStats", "ListAuditEvents",
    // Schedules (docs/schedules.md): a tenant's own, like its saved flows.
    "CreateSchedule", "UpdateSchedule", "DeleteSchedule", "PauseSchedule", "UnpauseSchedule",
    "TriggerSchedule", "BackfillSchedule", "DescribeSchedule", "ListSchedules",
    // Triggers (docs/schedules.md#event-triggers): a tenant's own too. An
    // event signed with a trigger's secret needs no token (call_gate.h).
    "CreateTrigger", "UpdateTrigger", "GetTrigger", "ListTriggers", "DeleteTrigger", "PublishEvent",
    "ListTriggerDeliveries"};
constexpr absl::string_view kAdminMethods[] = {"ListWorkers", "DrainWorker"};

bool Contains(const auto& names, absl::string_view name) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

}  // namespace

std::vector<Role> RolesFor(absl::string_view method) {
  if (absl::ConsumePrefix(&method, kScheduler)) {
    if (Contains(kClientMethods, method)) return {Role::kClient, Role::kAdmin};
    if (Contains(kAdminMethods, method)) return {Role::kAdmin};
    return {};
  }
  if (absl::ConsumePrefix(&method, kWorkerGateway)) {
    if (method == "Connect" || method == "RunState") return {Role::kWorker, Role::kAdmin};
  }
  // A backup and a follower's stream both carry every tenant's state:
  // operators only (docs/decisions.md, decision 183).
  if (method == kBackupMethod || method == kFollowMethod || method == kFetchCheckpointMethod ||
      method == kReplicaStatusMethod || method == kSwitchoverMethod ||
      method == kPromoteReplicaMethod) {
    return {Role::kAdmin};
  }
  return {};
}

absl::Status CheckRole(const Principal& principal, absl::string_view method) {
  std::vector<Role> roles = RolesFor(method);
  if (std::find(roles.begin(), roles.end(), principal.role) != roles.end()) {
    return absl::OkStatus();
  }
  if (roles.empty()) {
    return absl::PermissionDeniedError(
        absl::StrCat(method, " has no access rule, so no token may call it"));
  }
  std::vector<absl::string_view> names;
  for (Role role : roles) names.push_back(RoleName(role));
  return absl::PermissionDeniedError(absl::StrCat(
      method, " needs role ", absl::StrJoin(names, " or "), "; the token of '", principal.name,
      "' has role ", RoleName(principal.role), " (see the tokens file, docs/security.md#roles)"));
}

}  // namespace taskboard::auth
