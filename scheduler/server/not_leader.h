#ifndef TASKBOARD_SCHEDULER_SERVER_NOT_LEADER_H_
#define TASKBOARD_SCHEDULER_SERVER_NOT_LEADER_H_

// The answer of a replica that is not the leader
// (docs/high-availability.md#finding-the-leader): UNAVAILABLE, saying where
// the leader is, with a taskboard.v1.NotLeader payload that ToGrpcStatus
// sends as a status detail and the HTTP API as a "leader" object, and the
// plain trailer / header `taskboard-leader: host:port` that any client can
// read without decoding details.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "common/failover/leader_trailer.h"
#include "taskboard/v1/common.pb.h"

namespace taskboard::server {

inline constexpr char kNotLeaderPayloadUrl[] = "type.googleapis.com/taskboard.v1.NotLeader";
// The trailer (gRPC) and header (HTTP) naming the leader's gRPC address:
// the name the clients' failover reads.
inline constexpr const char* kLeaderTrailer = failover::kLeaderMetadataKey;

struct LeaderHint {
  std::string grpc;  // host:port
  std::string http;  // host:port; empty: no HTTP API
  int64_t epoch = 0;
};

// UNAVAILABLE "not the leader; the leader is at <grpc> (epoch N)", or "no
// leader elected yet; retry" without a hint, with the NotLeader payload.
absl::Status NotLeaderError(const std::optional<LeaderHint>& leader);

// The payload of a NotLeaderError (nullopt for any other status).
std::optional<v1::NotLeader> NotLeaderOf(const absl::Status& status);

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_NOT_LEADER_H_
