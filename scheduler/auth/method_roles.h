#ifndef TASKBOARD_SCHEDULER_AUTH_METHOD_ROLES_H_
#define TASKBOARD_SCHEDULER_AUTH_METHOD_ROLES_H_

// Which roles may call which method (docs/security.md#roles). Methods are
// named as gRPC names them: "/taskboard.v1.Scheduler/SubmitRun".
//
//   taskboard.v1.Scheduler (runs, flows, tasks,    client, admin
//     ListAuditEvents: a client its own tenant's)
//   Scheduler.ListWorkers, Scheduler.DrainWorker  admin
//   taskboard.v1.WorkerGateway.Connect            worker, admin
//   taskboard.ha.v1.Backup.Backup                 admin
//   taskboard.ha.v1.ReplicaService (replication)  admin
//   taskboard.ha.v1.ReplicaAdmin                   admin
//
// Health checking and reflection are not listed: they are never
// authenticated (load balancers and grpcurl need them).

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "scheduler/auth/principal.h"

namespace taskboard::auth {

// `taskboard admin backup` (scheduler/ha/replication.proto).
inline constexpr absl::string_view kBackupMethod = "/taskboard.ha.v1.Backup/Backup";
// A follower replica's calls to its leader (docs/high-availability.md#securing-replicas).
inline constexpr absl::string_view kFollowMethod = "/taskboard.ha.v1.ReplicaService/Follow";
inline constexpr absl::string_view kFetchCheckpointMethod =
    "/taskboard.ha.v1.ReplicaService/FetchCheckpoint";
// `taskboard admin ha status`, answered by every replica.
inline constexpr absl::string_view kReplicaStatusMethod =
    "/taskboard.ha.v1.ReplicaAdmin/GetReplicaStatus";
// `taskboard admin ha switchover` (the leader) and `promote` (a follower).
inline constexpr absl::string_view kSwitchoverMethod = "/taskboard.ha.v1.ReplicaAdmin/Switchover";
inline constexpr absl::string_view kPromoteReplicaMethod =
    "/taskboard.ha.v1.ReplicaAdmin/PromoteReplica";

// The roles that may call `method`; empty for a method without a rule,
// which nobody may call (a new method must be added to the table).
std::vector<Role> RolesFor(absl::string_view method);

// OK when `principal`'s role may call `method`; otherwise PERMISSION_DENIED
// naming the principal, its role and the roles the method needs.
absl::Status CheckRole(const Principal& principal, absl::string_view method);

}  // namespace taskboard::auth

#endif  // TASKBOARD_SCHEDULER_AUTH_METHOD_ROLES_H_
