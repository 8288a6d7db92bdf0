#ifndef TASKBOARD_TESTS_HA_REPLICA_CLUSTER_H_
#define TASKBOARD_TESTS_HA_REPLICA_CLUSTER_H_

// A replicated scheduler on loopback for the HA tests
// (docs/high-availability.md): a real 3-member etcd (etcd_cluster.h), N
// taskboard-scheduler replicas of one cluster and M taskboard-worker
// processes given every replica's address. Each replica binds port 0 on its
// first start and the same gRPC, HTTP and metrics ports on every restart, so
// workers and clients holding the address list find it again. Replicas can
// be killed, stopped, continued, wiped and restarted; a replica that stepped
// down exits 3 and the test, as its supervisor, restarts it
// (RestartExited). Everything is killed and removed when the object goes
// away, also after a failed test.
//
// Thread safety: one thread (the test's), except Address/Addresses,
// which are fixed once Start returned.

#include <signal.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/child_process.h"
#include "scheduler/ha/in_sync_set.h"
#include "taskboard/v1/scheduler.grpc.pb.h"
#include "tests/testing/etcd_cluster.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::testing {

struct ReplicaClusterOptions {
  int replicas = 3;
  // Short, so that a failover takes about two seconds (etcd's minimum TTL
  // with the harness's 1 s election timeout is 1.5 s).
  std::string lease_ttl = "2s";
  std::string cluster = "test";
  // The replicas' task lease timeout (--lease-timeout-ms).
  int64_t lease_timeout_ms = 3'000;
  std::vector<std::string> scheduler_flags;
  std::map<std::string, std::string> scheduler_env;
  int workers = 0;
  int slots = 2;
  // Default: tests/integration/agents in the source tree.
  std::string agents_dir;
  std::vector<std::string> worker_flags;
  EtcdClusterOptions etcd;
};

class ReplicaCluster {
 public:
  // Starts etcd, every replica (each serving its ports) and every worker.
  // UNAVAILABLE naming /usr/bin/etcd when etcd is not installed (tests skip
  // then: EtcdMissing).
  static absl::StatusOr<std::unique_ptr<ReplicaCluster>> Start(ReplicaClusterOptions options);
  ~ReplicaCluster();

  // Whether Start failed only because etcd is not installed.
  static bool EtcdMissing(const absl::Status& status);

  int size() const { return static_cast<int>(replicas_.size()); }
  EtcdCluster& etcd() { return *etcd_; }
  const std::filesystem::path& dir() const { return dir_.path(); }
  // The replica's file `s<i>.<name>` in dir() (its log is File(i, "log")).
  std::filesystem::path File(int replica, const std::string& name) const;
  std::string ReplicaId(int replica) const;

  // Starts replica `i` (its process must be gone) on its ports of the
  // first start; returns once it serves its port.
  absl::Status StartReplica(int i);
  // Sends `sig`; SIGKILL also reaps it (then it is not running).
  void Signal(int i, int sig);
  void Kill(int i) { Signal(i, SIGKILL); }
  bool Running(int i);
  ChildProcess* replica(int i) { return replicas_.at(i).process.get(); }
  // Waits for replica `i` to exit; its exit code.
  std::optional<int> WaitForExit(int i, absl::Duration timeout);
  // Removes a killed replica's data directory (a lost disk).
  absl::Status Wipe(int i);
  // Restarts every replica whose process exited (a stepped-down leader
  // exits 3), as Kubernetes would: the indexes restarted.
  absl::StatusOr<std::vector<int>> RestartExited();

  // "127.0.0.1:<grpc port>".
  const std::string& Address(int i) const { return replicas_.at(i).address; }
  // Every replica's address, comma-separated: a --scheduler value.
  std::string Addresses() const;
  int metrics_port(int i) const { return replicas_.at(i).metrics_port; }
  int http_port(int i) const { return replicas_.at(i).http_port; }

  // The HTTP status of GET `path` on the replica's metrics port (0: no
  // answer), and the body in `body`.
  int Get(int i, const std::string& path, std::string* body = nullptr);
  std::optional<double> Sample(int i, const std::string& series);
  // Waits until exactly one running replica (other than `not_this`) is
  // ready (/readyz: an unfenced leader) and the others are not; its index.
  std::optional<int> WaitForOneLeader(absl::Duration timeout, int not_this = -1);
  // The in-sync set in etcd once the leader (replica `leader`) wrote one
  // naming a follower (other than `not_member`, when given).
  absl::StatusOr<ha::InSyncSet> WaitForInSyncSet(int leader, absl::Duration timeout,
                                                 const std::string& not_member = "");
  // A Scheduler stub on replica `i` only (no failover).
  std::unique_ptr<v1::Scheduler::Stub> Client(int i);

  // Starts worker `index` as "worker-<index>" with --scheduler Addresses().
  absl::Status StartWorker(int index);
  void KillWorker(int index);
  ChildProcess* worker(int index) { return workers_.at(index).get(); }
  std::filesystem::path WorkerLog(int index) const;

  // The tail of every replica's and worker's log, for failure messages.
  std::string Logs() const;

 private:
  struct Replica {
    std::unique_ptr<ChildProcess> process;
    std::string address;
    int port = 0;
    int metrics_port = 0;
    int http_port = 0;
  };
  explicit ReplicaCluster(ReplicaClusterOptions options);

  ReplicaClusterOptions options_;
  TempDir dir_;
  std::unique_ptr<EtcdCluster> etcd_;
  std::vector<Replica> replicas_;
  std::vector<std::unique_ptr<ChildProcess>> workers_;
};

// For a test's SetUp: starts the cluster into `*cluster`, or skips the test
// when etcd is not installed (Debian package etcd-server), or fails it when
// the cluster does not start; `*cluster` stays null in both cases.
void StartReplicasOrSkip(ReplicaClusterOptions options, std::unique_ptr<ReplicaCluster>* cluster);

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_HA_REPLICA_CLUSTER_H_
