#ifndef TASKBOARD_SCHEDULER_HA_LEADER_VALUE_H_
#define TASKBOARD_SCHEDULER_HA_LEADER_VALUE_H_

// The value a replicated scheduler's leader puts in its etcd leader key
// (LeaderElectionOptions::advertise): who it is and where it is reached, as
// JSON {"replica": "r1", "grpc": "10.0.0.5:7233", "http": "10.0.0.5:8080"}.
// Followers replicate from `grpc` and name both addresses in their NotLeader
// answers (docs/high-availability.md#finding-the-leader).

#include <string>

#include "absl/strings/string_view.h"

namespace taskboard::ha {

struct LeaderValue {
  std::string replica;
  std::string grpc;  // host:port
  std::string http;  // host:port; empty: no HTTP API
};

std::string EncodeLeaderValue(const LeaderValue& value);
// A value that is not such JSON is taken as a bare gRPC address (what the
// election's own tools write).
LeaderValue DecodeLeaderValue(absl::string_view text);

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_LEADER_VALUE_H_
