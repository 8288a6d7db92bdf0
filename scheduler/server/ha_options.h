#ifndef TASKBOARD_SCHEDULER_SERVER_HA_OPTIONS_H_
#define TASKBOARD_SCHEDULER_SERVER_HA_OPTIONS_H_

// What a replicated scheduler is told (the --ha-* flags, resolved;
// docs/high-availability.md#running-replicas). Present in
// SchedulerServerOptions only with --ha-etcd-endpoints: without it no HA code
// runs and the scheduler is the single replica it always was.

#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "grpcpp/security/credentials.h"

namespace taskboard::server {

struct HaOptions {
  // "host:port" of each etcd member's client URL; at least one.
  std::vector<std::string> etcd_endpoints;
  std::string etcd_prefix = "/taskboard";
  std::string cluster = "taskboard";
  // This replica's name in the in-sync set; the host name by default.
  std::string replica_id;
  // Where the other replicas, the workers and the clients reach this
  // replica's gRPC port, and its HTTP API. Empty: the --listen host (the
  // host name when that is a wildcard) with the bound port; no HTTP address
  // without --http-listen.
  std::string advertise;
  std::string advertise_http;
  absl::Duration lease_ttl = absl::Seconds(3);
  // Followers that must hold a write before it is acknowledged
  // (docs/high-availability.md#acknowledged-writes).
  int sync_replicas = 1;
  // How a follower calls the leader's ReplicaService: the `authorization:
  // Bearer` token (empty: none, the replicas run without --auth-tokens) and
  // the channel's credentials (null: plaintext).
  std::string token;
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  // An in-sync follower that keeps a write waiting this long is replaced by
  // one that holds it, if there is one (docs/decisions.md, decision 170).
  absl::Duration sync_timeout = absl::Seconds(1);
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_HA_OPTIONS_H_
