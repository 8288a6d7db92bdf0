#include "tests/ha/replica_cluster.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/files.h"
#include "gtest/gtest.h"
#include "scheduler/ha/etcd_client.h"
#include "tests/testing/cluster.h"
#include "tests/testing/metrics_port.h"
#include "tests/testing/test_channel.h"

namespace taskboard::testing {
namespace {

// Reads the port a --*-port-file names; 0 until it is written.
int ReadPort(const std::filesystem::path& file) {
  int port = 0;
  std::ifstream(file) >> port;
  return port;
}

std::string Tail(const std::string& text, size_t max = 4000) {
  return text.size() <= max ? text : text.substr(text.size() - max);
}

}  // namespace

ReplicaCluster::ReplicaCluster(ReplicaClusterOptions options) : options_(std::move(options)) {
  if (options_.agents_dir.empty()) options_.agents_dir = SourcePath("tests/integration/agents");
  replicas_.resize(options_.replicas);
  workers_.resize(options_.workers);
}

ReplicaCluster::~ReplicaCluster() {
  for (auto& worker : workers_) worker.reset();
  for (Replica& replica : replicas_) replica.process.reset();
  etcd_.reset();
}

bool ReplicaCluster::EtcdMissing(const absl::Status& status) {
  return !status.ok() && absl::StrContains(status.message(), "/usr/bin/etcd");
}

absl::StatusOr<std::unique_ptr<ReplicaCluster>> ReplicaCluster::Start(
    ReplicaClusterOptions options) {
  std::unique_ptr<ReplicaCluster> cluster(new ReplicaCluster(std::move(options)));
  absl::StatusOr<std::unique_ptr<EtcdCluster>> etcd = EtcdCluster::Start(cluster->options_.etcd);
  if (!etcd.ok()) return etcd.status();
  cluster->etcd_ = *std::move(etcd);
  for (int i = 0; i < cluster->size(); ++i) {
    if (absl::Status started = cluster->StartReplica(i); !started.ok()) {
      return absl::Status(started.code(), absl::StrCat(started.message(), cluster->Logs()));
    }
  }
  for (int i = 0; i < cluster->options_.workers; ++i) {
    if (absl::Status started = cluster->StartWorker(i); !started.ok()) return started;
  }
  return cluster;
}

std::filesystem::path ReplicaCluster::File(int replica, const std::string& name) const {
  return dir_.path() / absl::StrCat("s", replica, ".", name);
}

std::string ReplicaCluster::ReplicaId(int replica) const { return absl::StrCat("s", replica); }

absl::Status ReplicaCluster::StartReplica(int i) {
  Replica& replica = replicas_.at(i);
  if (replica.process != nullptr && replica.process->Running()) {
    return absl::FailedPreconditionError(absl::StrCat("replica s", i, " is still running"));
  }
  for (const char* name : {"port", "metrics-port", "http-port"}) {
    std::filesystem::remove(File(i, name));
  }
  std::vector<std::string> argv = {BinaryPath("taskboard-scheduler"),
                                   "--listen",
                                   absl::StrCat("127.0.0.1:", replica.port),
                                   "--data-dir",
                                   File(i, "data").string(),
                                   "--durability",
                                   "wal",
                                   "--port-file",
                                   File(i, "port").string(),
                                   "--metrics-listen",
                                   absl::StrCat("127.0.0.1:", replica.metrics_port),
                                   "--metrics-port-file",
                                   File(i, "metrics-port").string(),
                                   "--http-listen",
                                   absl::StrCat("127.0.0.1:", replica.http_port),
                                   "--http-port-file",
                                   File(i, "http-port").string(),
                                   "--lease-timeout-ms",
                                   absl::StrCat(options_.lease_timeout_ms),
                                   "--ha-etcd-endpoints",
                                   absl::StrJoin(etcd_->endpoints(), ","),
                                   "--ha-cluster",
                                   options_.cluster,
                                   "--ha-replica-id",
                                   ReplicaId(i),
                                   "--ha-lease-ttl",
                                   options_.lease_ttl};
  argv.insert(argv.end(), options_.scheduler_flags.begin(), options_.scheduler_flags.end());
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Spawn(argv, File(i, "log").string(), options_.scheduler_env);
  if (!child.ok()) return child.status();
  replica.process = *std::move(child);
  absl::StatusOr<int> port = WaitForPortFile(*replica.process, File(i, "port").string(), 30'000);
  if (!port.ok()) {
    return absl::UnavailableError(
        absl::StrCat("replica s", i, " did not start: ", port.status().message()));
  }
  replica.port = *port;
  replica.address = absl::StrCat("127.0.0.1:", *port);
  replica.metrics_port = ReadPort(File(i, "metrics-port"));
  replica.http_port = ReadPort(File(i, "http-port"));
  if (replica.metrics_port == 0 || replica.http_port == 0) {
    return absl::InternalError(absl::StrCat("replica s", i, " wrote no metrics or HTTP port"));
  }
  return absl::OkStatus();
}

void ReplicaCluster::Signal(int i, int sig) {
  ChildProcess* process = replicas_.at(i).process.get();
  if (process == nullptr) return;
  process->Signal(sig);
  if (sig == SIGKILL) process->WaitFor(10'000);
}

bool ReplicaCluster::Running(int i) {
  ChildProcess* process = replicas_.at(i).process.get();
  return process != nullptr && process->Running();
}

std::optional<int> ReplicaCluster::WaitForExit(int i, absl::Duration timeout) {
  ChildProcess* process = replicas_.at(i).process.get();
  if (process == nullptr) return std::nullopt;
  return process->WaitFor(static_cast<int>(absl::ToInt64Milliseconds(timeout)));
}

absl::Status ReplicaCluster::Wipe(int i) {
  if (Running(i)) {
    return absl::FailedPreconditionError(absl::StrCat("kill replica s", i, " before wiping it"));
  }
  std::error_code error;
  std::filesystem::remove_all(File(i, "data"), error);
  if (error) {
    return absl::InternalError(absl::StrCat("could not remove ", File(i, "data").string(), ": ",
                                            error.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int>> ReplicaCluster::RestartExited() {
  std::vector<int> restarted;
  for (int i = 0; i < size(); ++i) {
    if (replicas_.at(i).process == nullptr || Running(i)) continue;
    if (absl::Status started = StartReplica(i); !started.ok()) return started;
    restarted.push_back(i);
  }
  return restarted;
}

std::string ReplicaCluster::Addresses() const {
  std::vector<std::string> addresses;
  for (const Replica& replica : replicas_) addresses.push_back(replica.address);
  return absl::StrJoin(addresses, ",");
}

int ReplicaCluster::Get(int i, const std::string& path, std::string* body) {
  return GetOnMetricsPort(replicas_.at(i).metrics_port, path, body);
}

std::optional<double> ReplicaCluster::Sample(int i, const std::string& series) {
  return SampleOnMetricsPort(replicas_.at(i).metrics_port, series);
}

std::optional<int> ReplicaCluster::WaitForOneLeader(absl::Duration timeout, int not_this) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    std::vector<int> ready;
    for (int i = 0; i < size(); ++i) {
      if (i == not_this || !Running(i)) continue;
      if (Get(i, "/readyz") == 200) ready.push_back(i);
    }
    if (ready.size() == 1) return ready.front();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return std::nullopt;
}

absl::StatusOr<ha::InSyncSet> ReplicaCluster::WaitForInSyncSet(int leader, absl::Duration timeout,
                                                               const std::string& not_member) {
  absl::StatusOr<std::unique_ptr<ha::EtcdClient>> etcd =
      ha::EtcdClient::Create(ha::EtcdClientOptions{.endpoints = etcd_->endpoints()});
  if (!etcd.ok()) return etcd.status();
  const absl::Time deadline = absl::Now() + timeout;
  std::string last;
  while (absl::Now() < deadline) {
    etcdserverpb::RangeRequest request;
    request.set_key(absl::StrCat("/taskboard/", options_.cluster, "/in_sync"));
    absl::StatusOr<etcdserverpb::RangeResponse> range =
        (*etcd)->Range(request, absl::Now() + absl::Seconds(2));
    if (range.ok() && range->kvs_size() == 1) {
      last = range->kvs(0).value();
      absl::StatusOr<ha::InSyncSet> set = ha::DecodeInSyncSet(last);
      if (set.ok() && set->leader == ReplicaId(leader) && !set->replicas.empty() &&
          std::find(set->replicas.begin(), set->replicas.end(), not_member) ==
              set->replicas.end()) {
        return set;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return absl::DeadlineExceededError(absl::StrCat("no in-sync set of leader s", leader,
                                                  " in etcd (last: '", last, "')", Logs()));
}

std::unique_ptr<v1::Scheduler::Stub> ReplicaCluster::Client(int i) {
  return v1::Scheduler::NewStub(TestChannel(replicas_.at(i).address));
}

std::filesystem::path ReplicaCluster::WorkerLog(int index) const {
  return dir_.path() / absl::StrCat("worker-", index, ".log");
}

absl::Status ReplicaCluster::StartWorker(int index) {
  if (index >= static_cast<int>(workers_.size())) workers_.resize(index + 1);
  std::vector<std::string> argv = {BinaryPath("taskboard-worker"),
                                   "--scheduler",
                                   Addresses(),
                                   "--agents",
                                   options_.agents_dir,
                                   "--slots",
                                   absl::StrCat(options_.slots),
                                   "--worker-id",
                                   absl::StrCat("worker-", index),
                                   "--workspace-root",
                                   dir_.path().string(),
                                   // A worker on a stopped leader notices within 3 s,
                                   // not gRPC's default 20 s (see
                                   // docs/operations.md#clients-and-replicated-schedulers).
                                   "--keepalive-time-ms",
                                   "1000",
                                   "--keepalive-timeout-ms",
                                   "2000"};
  argv.insert(argv.end(), options_.worker_flags.begin(), options_.worker_flags.end());
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Spawn(argv, WorkerLog(index).string());
  if (!child.ok()) return child.status();
  workers_.at(index) = *std::move(child);
  return absl::OkStatus();
}

void ReplicaCluster::KillWorker(int index) {
  if (workers_.at(index) != nullptr) workers_.at(index)->KillGroup();
}

std::string ReplicaCluster::Logs() const {
  std::string logs;
  for (int i = 0; i < static_cast<int>(replicas_.size()); ++i) {
    absl::StrAppend(&logs, "\n--- s", i, ".log\n", Tail(ReadFileOrEmpty(File(i, "log").string())));
  }
  for (int i = 0; i < static_cast<int>(workers_.size()); ++i) {
    absl::StrAppend(&logs, "\n--- worker-", i, ".log\n",
                    Tail(ReadFileOrEmpty(WorkerLog(i).string())));
  }
  return logs;
}

void StartReplicasOrSkip(ReplicaClusterOptions options, std::unique_ptr<ReplicaCluster>* cluster) {
  absl::StatusOr<std::unique_ptr<ReplicaCluster>> started =
      ReplicaCluster::Start(std::move(options));
  if (ReplicaCluster::EtcdMissing(started.status())) {
    GTEST_SKIP() << "etcd is not installed (Debian package etcd-server): "
                 << started.status().message();
  }
  ASSERT_TRUE(started.ok()) << started.status();
  *cluster = *std::move(started);
}

}  // namespace taskboard::testing
