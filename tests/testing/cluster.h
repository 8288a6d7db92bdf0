#ifndef TASKBOARD_TESTS_TESTING_CLUSTER_H_
#define TASKBOARD_TESTS_TESTING_CLUSTER_H_

// A real Taskboard deployment on loopback for integration, e2e and chaos
// tests: one taskboard-scheduler process (RocksDB in a temp dir, port 0 on
// first start and the same port on restarts, so workers reconnect) and N
// taskboard-worker processes with the test agents. Everything it starts is
// killed and removed when it goes away.

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/child_process.h"
#include "common/json.h"
#include "grpcpp/security/credentials.h"
#include "taskboard/v1/scheduler.grpc.pb.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::testing {

struct ClusterOptions {
  int workers = 2;
  int slots = 4;
  // Default: tests/integration/agents in the source tree.
  std::string agents_dir;
  std::string durability = "wal";
  int64_t lease_timeout_ms = 3'000;
  int64_t heartbeat_interval_ms = 500;
  int64_t scheduling_timeout_ms = 20'000;
  int64_t retry_base_ms = 50;
  std::vector<std::string> scheduler_flags;
  std::vector<std::string> worker_flags;
  // Workers share the cluster's directory (dir()) as their --workspace-root;
  // false: each task works in a fresh directory under dir()/worker-data, the
  // worker's default.
  bool shared_workspace = true;
  // The client stub (client()): sent as the bearer token on every call, and
  // TLS credentials (null: plaintext).
  std::string client_token;
  std::shared_ptr<grpc::ChannelCredentials> client_credentials;
};

class Cluster {
 public:
  explicit Cluster(ClusterOptions options = {});
  ~Cluster();

  // Starts the scheduler, then the workers. Workers connect on their own;
  // tasks wait for them (up to the scheduling timeout).
  absl::Status Start();
  absl::Status StartScheduler();
  void KillScheduler(int sig = SIGKILL);
  absl::Status StartWorker(int index);
  void KillWorker(int index, int sig = SIGKILL);
  ChildProcess* worker(int index) { return workers_.at(index).get(); }
  ChildProcess* scheduler() { return scheduler_.get(); }

  const std::string& address() const { return address_; }
  v1::Scheduler::Stub& client() { return *client_; }
  const std::filesystem::path& dir() const { return dir_.path(); }

  // Submits DSL text (JSON or YAML) with args; the run id.
  absl::StatusOr<std::string> Submit(const std::string& flow_text,
                                     const Json& args = Json::object(),
                                     const std::string& session_id = "");
  // One GetRun (5 s deadline), with the scheduler's status code; with
  // `without_tasks`, GetRunRequest.without_tasks.
  absl::StatusOr<v1::Run> GetRun(const std::string& run_id, bool without_tasks = false);
  // Polls GetRun until the run is finished (tolerating a restarting
  // scheduler) or `timeout_ms` passes (DEADLINE_EXCEEDED with the logs).
  absl::StatusOr<v1::Run> WaitForRun(const std::string& run_id, int timeout_ms = 60'000);
  // Polls until `predicate(run)` holds.
  absl::StatusOr<v1::Run> WaitUntil(const std::string& run_id,
                                    const std::function<bool(const v1::Run&)>& predicate,
                                    int timeout_ms = 60'000);
  // Every event of the run through WatchRun from seq 0 to run_finished.
  absl::StatusOr<std::vector<v1::RunEvent>> WatchToEnd(const std::string& run_id,
                                                       int timeout_ms = 60'000);
  // Polls ListWorkers until `predicate(workers)` holds (worker streams come
  // and go asynchronously) or `timeout_ms` passes (DEADLINE_EXCEEDED with the
  // last answer and the logs).
  absl::StatusOr<v1::ListWorkersResponse> WaitForWorkers(
      const std::function<bool(const v1::ListWorkersResponse&)>& predicate,
      int timeout_ms = 10'000);
  // The task's tool calls (GetTask), in call order.
  absl::StatusOr<std::vector<v1::Observation>> ToolCalls(const std::string& run_id,
                                                         const std::string& task_id);
  // The tail of every process log, for failure messages.
  std::string Logs() const;

 private:
  ClusterOptions options_;
  TempDir dir_;
  std::string address_;
  int port_ = 0;
  std::unique_ptr<ChildProcess> scheduler_;
  std::vector<std::unique_ptr<ChildProcess>> workers_;
  std::unique_ptr<v1::Scheduler::Stub> client_;
};

// The path of a built binary (build/bin/NAME).
std::string BinaryPath(const std::string& name);
// The path of a file in the source tree.
std::string SourcePath(const std::string& relative);

// A built binary run with `args` until it exits (at most 10 s): its exit code
// (none when it did not exit or could not start) and everything it printed.
struct Exited {
  std::optional<int> code;
  std::string output;
};
Exited RunToExit(const std::string& binary, const std::vector<std::string>& args,
                 const std::map<std::string, std::string>& env = {});

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_CLUSTER_H_
