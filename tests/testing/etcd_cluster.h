#ifndef TASKBOARD_TESTS_TESTING_ETCD_CLUSTER_H_
#define TASKBOARD_TESTS_TESTING_ETCD_CLUSTER_H_

// A real etcd cluster on loopback for the HA tests: N members of Debian's
// /usr/bin/etcd (etcd-server, 3.4), each with its data, stdout and log in a
// temp dir, on free loopback ports picked up front (etcd cannot report a port
// it chose) and kept across restarts. Members can be killed, stopped
// (SIGSTOP) and continued, restarted on their data, and the whole cluster
// wiped (a fresh cluster on the same ports). Every process is killed and the
// directory removed when the object goes away, also after a failed test.
//
// Timing is production-like (heartbeat 100 ms, election timeout 1 s,
// pre-vote), so tests see real etcd leader elections (1-2 s).
//
// Thread safety: one thread.

#include <signal.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/child_process.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::testing {

struct EtcdClusterOptions {
  int members = 3;
  int heartbeat_ms = 100;
  int election_ms = 1000;
  // The longest Start, Restart and Wipe wait for a healthy cluster.
  absl::Duration start_timeout = absl::Seconds(20);
};

class EtcdCluster {
 public:
  // Starts every member and waits until they agree on an etcd leader and
  // each serves a linearizable read. UNAVAILABLE (with the members' log
  // tails) when /usr/bin/etcd is missing or the cluster did not get healthy.
  static absl::StatusOr<std::unique_ptr<EtcdCluster>> Start(EtcdClusterOptions options = {});
  ~EtcdCluster();

  int size() const { return static_cast<int>(members_.size()); }
  // "127.0.0.1:port" of every member's client URL, in member order.
  std::vector<std::string> endpoints() const;
  std::string endpoint(int member) const;
  bool running(int member) const;

  // Sends `sig` to the member; SIGKILL also reaps it (then it is not running).
  void Kill(int member, int sig = SIGKILL);
  // SIGSTOP / SIGCONT.
  void Pause(int member) { Kill(member, SIGSTOP); }
  void Continue(int member) { Kill(member, SIGCONT); }
  // Starts a killed member again on its data (it rejoins the cluster).
  absl::Status Restart(int member);
  // Kills every member, removes all data and starts a fresh cluster (new
  // cluster token) on the same ports.
  absl::Status Wipe();

  // Waits until every running member agrees on one etcd leader and serves a
  // linearizable read; DEADLINE_EXCEEDED with the log tails otherwise.
  absl::Status WaitHealthy(absl::Duration timeout);
  // The index of the member that is etcd's raft leader, as the running
  // members report it; NOT_FOUND when none is known within `timeout`.
  absl::StatusOr<int> LeaderIndex(absl::Duration timeout = absl::Seconds(5));

  // The tail of every member's log, for failure messages.
  std::string Logs() const;
  const std::string& dir() const { return dir_string_; }

 private:
  struct Member {
    std::string name;
    int client_port = 0;
    int peer_port = 0;
    std::unique_ptr<ChildProcess> process;
  };
  explicit EtcdCluster(EtcdClusterOptions options);
  absl::Status SpawnMember(int index);

  EtcdClusterOptions options_;
  TempDir dir_;
  std::string dir_string_;
  std::string token_;
  int generation_ = 0;
  std::vector<Member> members_;
};

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_ETCD_CLUSTER_H_
