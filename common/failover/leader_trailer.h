#ifndef TASKBOARD_COMMON_FAILOVER_LEADER_TRAILER_H_
#define TASKBOARD_COMMON_FAILOVER_LEADER_TRAILER_H_

// The one name both ends of a leader hint use
// (docs/high-availability.md#finding-the-leader): a scheduler replica that is
// not the leader answers with this gRPC trailer (and HTTP header) holding the
// leader's gRPC address as plain ASCII host:port; the CLI and the workers
// read it to go there at once.

namespace taskboard::failover {

inline constexpr char kLeaderMetadataKey[] = "taskboard-leader";

}  // namespace taskboard::failover

#endif  // TASKBOARD_COMMON_FAILOVER_LEADER_TRAILER_H_
