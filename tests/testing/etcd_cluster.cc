#include "tests/testing/etcd_cluster.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/ha/etcd_client.h"

namespace taskboard::testing {
namespace {

constexpr char kEtcdBinary[] = "/usr/bin/etcd";

// `count` distinct free loopback ports: each bound (port 0) and held until
// all are picked, then released for etcd to bind.
absl::StatusOr<std::vector<int>> PickFreePorts(int count) {
  std::vector<int> sockets;
  std::vector<int> ports;
  absl::Status status;
  for (int i = 0; i < count && status.ok(); ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      status = absl::UnavailableError("cannot bind a free loopback port");
    } else {
      ports.push_back(ntohs(address.sin_port));
    }
    if (fd >= 0) sockets.push_back(fd);
  }
  for (int fd : sockets) close(fd);
  if (!status.ok()) return status;
  return ports;
}

std::string Tail(const std::string& path, size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(std::move(line));
  const size_t from = all.size() > lines ? all.size() - lines : 0;
  std::ostringstream out;
  for (size_t i = from; i < all.size(); ++i) out << "    " << all[i] << "\n";
  return out.str();
}

// A client of one member only (no failover), for health and leader checks.
std::unique_ptr<ha::EtcdClient> ClientOf(const std::string& endpoint) {
  ha::EtcdClientOptions options;
  options.endpoints = {endpoint};
  return *ha::EtcdClient::Create(std::move(options));
}

}  // namespace

EtcdCluster::EtcdCluster(EtcdClusterOptions options)
    : options_(std::move(options)), dir_string_(dir_.path().string()) {}

EtcdCluster::~EtcdCluster() {
  for (Member& member : members_) member.process.reset();  // kills the group, reaps
}

absl::StatusOr<std::unique_ptr<EtcdCluster>> EtcdCluster::Start(EtcdClusterOptions options) {
  if (!std::filesystem::exists(kEtcdBinary)) {
    return absl::UnavailableError(absl::StrCat(
        kEtcdBinary, " is missing: scripts/install-deps.sh --test installs etcd-server"));
  }
  // The ports are free when picked but released before etcd binds them, so
  // another process can take one meanwhile: then a member exits at once and
  // a second attempt on fresh ports starts the cluster.
  absl::Status last;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::unique_ptr<EtcdCluster> cluster(new EtcdCluster(options));
    absl::StatusOr<std::vector<int>> ports = PickFreePorts(2 * options.members);
    if (!ports.ok()) return ports.status();
    for (int i = 0; i < options.members; ++i) {
      cluster->members_.push_back(
          Member{absl::StrCat("m", i), (*ports)[2 * i], (*ports)[2 * i + 1], nullptr});
    }
    cluster->token_ = absl::StrCat("taskboard-test-", absl::Uniform<uint64_t>(absl::BitGen()));
    for (int i = 0; i < options.members; ++i) {
      if (absl::Status spawned = cluster->SpawnMember(i); !spawned.ok()) return spawned;
    }
    last = cluster->WaitHealthy(options.start_timeout);
    if (last.ok()) return cluster;
    bool member_exited = false;
    for (int i = 0; i < cluster->size(); ++i) member_exited |= !cluster->running(i);
    if (!member_exited) break;  // not a port taken: a second attempt would fail alike
  }
  return absl::UnavailableError(absl::StrCat("the etcd cluster did not start: ", last.message()));
}

absl::Status EtcdCluster::SpawnMember(int index) {
  Member& member = members_[index];
  std::vector<std::string> peers;
  for (const Member& peer : members_) {
    peers.push_back(absl::StrCat(peer.name, "=http://127.0.0.1:", peer.peer_port));
  }
  const std::string client_url = absl::StrCat("http://127.0.0.1:", member.client_port);
  const std::string peer_url = absl::StrCat("http://127.0.0.1:", member.peer_port);
  // On a restart the data directory exists and etcd ignores the initial-*
  // flags: the member rejoins with what it stored.
  // clang-format off: one flag and its value per line
  const std::vector<std::string> argv = {
      kEtcdBinary,
      "--name",
      member.name,
      "--data-dir",
      absl::StrCat(dir_string_, "/", member.name, ".etcd"),
      "--listen-client-urls",
      client_url,
      "--advertise-client-urls",
      client_url,
      "--listen-peer-urls",
      peer_url,
      "--initial-advertise-peer-urls",
      peer_url,
      "--initial-cluster",
      absl::StrJoin(peers, ","),
      "--initial-cluster-state",
      "new",
      "--initial-cluster-token",
      absl::StrCat(token_, "-", generation_),
      "--heartbeat-interval",
      absl::StrCat(options_.heartbeat_ms),
      "--election-timeout",
      absl::StrCat(options_.election_ms),
      "--pre-vote",
      "--logger",
      "zap",
      "--log-outputs",
      "stderr",
  };
  // clang-format on
  absl::StatusOr<std::unique_ptr<ChildProcess>> process =
      ChildProcess::Spawn(argv, absl::StrCat(dir_string_, "/", member.name, ".log"));
  if (!process.ok()) return process.status();
  member.process = *std::move(process);
  return absl::OkStatus();
}

std::vector<std::string> EtcdCluster::endpoints() const {
  std::vector<std::string> all;
  for (int i = 0; i < size(); ++i) all.push_back(endpoint(i));
  return all;
}

std::string EtcdCluster::endpoint(int member) const {
  return absl::StrCat("127.0.0.1:", members_.at(member).client_port);
}

bool EtcdCluster::running(int member) const {
  const std::unique_ptr<ChildProcess>& process = members_.at(member).process;
  return process != nullptr && process->Running();
}

void EtcdCluster::Kill(int member, int sig) {
  std::unique_ptr<ChildProcess>& process = members_.at(member).process;
  if (process == nullptr) return;
  if (sig == SIGKILL) {
    process.reset();  // SIGKILL to its group, then reaped
    return;
  }
  process->Signal(sig);
}

absl::Status EtcdCluster::Restart(int member) {
  if (running(member)) {
    return absl::FailedPreconditionError(absl::StrCat("etcd member ", member, " is running"));
  }
  return SpawnMember(member);
}

absl::Status EtcdCluster::Wipe() {
  for (int i = 0; i < size(); ++i) {
    Kill(i);
    std::error_code ignored;
    std::filesystem::remove_all(absl::StrCat(dir_string_, "/", members_[i].name, ".etcd"), ignored);
  }
  ++generation_;
  for (int i = 0; i < size(); ++i) {
    if (absl::Status spawned = SpawnMember(i); !spawned.ok()) return spawned;
  }
  return WaitHealthy(options_.start_timeout);
}

absl::Status EtcdCluster::WaitHealthy(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::string last = "no member running";
  while (absl::Now() < deadline) {
    std::map<uint64_t, int> leaders;  // leader id -> members that report it
    int running_members = 0;
    bool all_read = true;
    for (int i = 0; i < size(); ++i) {
      if (!running(i)) continue;
      ++running_members;
      std::unique_ptr<ha::EtcdClient> client = ClientOf(endpoint(i));
      const absl::Time call_deadline = std::min(deadline, absl::Now() + absl::Seconds(1));
      absl::StatusOr<etcdserverpb::StatusResponse> status = client->Status(0, call_deadline);
      if (!status.ok() || status->leader() == 0) {
        last = status.ok() ? absl::StrCat("member ", i, " knows no leader")
                           : std::string(status.status().message());
        all_read = false;
        continue;
      }
      ++leaders[status->leader()];
      etcdserverpb::RangeRequest read;
      read.set_key("health");
      absl::StatusOr<etcdserverpb::RangeResponse> range = client->Range(read, call_deadline);
      if (!range.ok()) {
        last = std::string(range.status().message());
        all_read = false;
      }
    }
    if (running_members > 0 && all_read && leaders.size() == 1 &&
        leaders.begin()->second == running_members) {
      return absl::OkStatus();
    }
    if (leaders.size() > 1) last = "members disagree on the etcd leader";
    absl::SleepFor(absl::Milliseconds(100));
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "etcd not healthy within ", absl::FormatDuration(timeout), " (", last, "):\n", Logs()));
}

absl::StatusOr<int> EtcdCluster::LeaderIndex(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    std::map<uint64_t, int> index_of;  // member id -> index
    uint64_t leader = 0;
    for (int i = 0; i < size(); ++i) {
      if (!running(i)) continue;
      absl::StatusOr<etcdserverpb::StatusResponse> status =
          ClientOf(endpoint(i))->Status(0, absl::Now() + absl::Milliseconds(500));
      if (!status.ok()) continue;
      index_of[status->header().member_id()] = i;
      if (status->leader() != 0) leader = status->leader();
    }
    if (auto it = index_of.find(leader); leader != 0 && it != index_of.end()) return it->second;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return absl::NotFoundError("no running etcd member reports a leader it can reach");
}

std::string EtcdCluster::Logs() const {
  std::string logs;
  for (const Member& member : members_) {
    absl::StrAppend(&logs, "  etcd ", member.name, " (client ", member.client_port, "):\n",
                    Tail(absl::StrCat(dir_string_, "/", member.name, ".log"), 15));
  }
  return logs;
}

}  // namespace taskboard::testing
