// ha_election_candidate: one LeaderElection candidate in a process of its
// own, for the HA integration tests, which kill it (SIGKILL), stop it
// (SIGSTOP) and continue it like a scheduler replica.
//
//   ha_election_candidate --endpoints=H:P,H:P --cluster=NAME --id=ID
//                         [--ttl-ms=3000] [--prefix=/taskboard]
//
// It prints one line per election event on stdout, with times on the
// LeaseClock (CLOCK_BOOTTIME, comparable between processes):
//   event=elected epoch=E at_ns=T sent_ns=S
//   event=deposed epoch=E at_ns=T noticed_ns=N reason=...
//   event=observed epoch=E leader=ADDRESS at_ns=T
//   event=gone epoch=E at_ns=T
// On SIGUSR1 it prints `status is_leader=0|1 epoch=E` and then tries the
// fenced write a leader makes, the in-sync set conditioned on its last epoch,
// without the local check: `fenced_write epoch=E code=CODE`.
// On SIGTERM it stops (resigning if it leads) and exits 0.

#include <signal.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/ha/etcd_client.h"
#include "scheduler/ha/etcd_election_kv.h"
#include "scheduler/ha/leader_election.h"

namespace {

using taskboard::ha::ElectionEvent;

int64_t Ns(absl::Duration d) { return absl::ToInt64Nanoseconds(d); }

absl::Mutex print_mu;
void Print(const std::string& line) {
  absl::MutexLock lock(&print_mu);
  std::fprintf(stdout, "%s\n", line.c_str());
  std::fflush(stdout);
}

std::string Describe(const ElectionEvent& event) {
  switch (event.kind) {
    case ElectionEvent::Kind::kElected:
      return absl::StrCat("event=elected epoch=", event.epoch, " at_ns=", Ns(event.at),
                          " sent_ns=", Ns(event.campaign_sent));
    case ElectionEvent::Kind::kDeposed:
      return absl::StrCat("event=deposed epoch=", event.epoch, " at_ns=", Ns(event.at),
                          " noticed_ns=", Ns(taskboard::ha::DefaultLeaseClock()->Now()),
                          " reason=", event.reason);
    case ElectionEvent::Kind::kLeaderObserved:
      return absl::StrCat("event=observed epoch=", event.epoch, " leader=", event.leader,
                          " at_ns=", Ns(event.at));
    case ElectionEvent::Kind::kLeaderGone:
      return absl::StrCat("event=gone epoch=", event.epoch, " at_ns=", Ns(event.at));
  }
  return "event=unknown";
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> flags = {{"ttl-ms", "3000"}, {"prefix", "/taskboard"}};
  for (int i = 1; i < argc; ++i) {
    std::pair<std::string, std::string> flag = absl::StrSplit(argv[i], absl::MaxSplits('=', 1));
    if (flag.first.rfind("--", 0) != 0) {
      std::fprintf(stderr, "usage: %s --endpoints=H:P,... --cluster=NAME --id=ID\n", argv[0]);
      return 2;
    }
    flags[flag.first.substr(2)] = flag.second;
  }
  int64_t ttl_ms = 0;
  if (!absl::SimpleAtoi(flags["ttl-ms"], &ttl_ms)) {
    std::fprintf(stderr, "--ttl-ms: not a number\n");
    return 2;
  }

  // Signals are taken by one thread with sigwait; every other thread
  // (gRPC's too) inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGUSR1);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  taskboard::ha::EtcdClientOptions client_options;
  client_options.endpoints = absl::StrSplit(flags["endpoints"], ',', absl::SkipEmpty());
  absl::StatusOr<std::unique_ptr<taskboard::ha::EtcdClient>> client =
      taskboard::ha::EtcdClient::Create(client_options);
  if (!client.ok()) {
    std::fprintf(stderr, "%s\n", client.status().ToString().c_str());
    return 2;
  }
  taskboard::ha::EtcdElectionKv kv(client->get());
  taskboard::ha::LeaderElectionOptions options;
  options.prefix = flags["prefix"];
  options.cluster = flags["cluster"];
  options.candidate_id = flags["id"];
  options.advertise = absl::StrCat(flags["id"], ".replica:7233");
  options.ttl = absl::Milliseconds(ttl_ms);
  options.on_event = [](const ElectionEvent& event) { Print(Describe(event)); };
  absl::StatusOr<std::unique_ptr<taskboard::ha::LeaderElection>> election =
      taskboard::ha::LeaderElection::Create(options, &kv);
  if (!election.ok()) {
    std::fprintf(stderr, "%s\n", election.status().ToString().c_str());
    return 2;
  }
  (*election)->Start();
  Print(absl::StrCat("started pid=", getpid()));

  while (true) {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig == SIGTERM) break;
    const int64_t epoch = (*election)->epoch();
    Print(absl::StrCat("status is_leader=", (*election)->IsLeader() ? 1 : 0, " epoch=", epoch));
    const absl::Status written = taskboard::ha::WriteInSyncIfEpoch(
        kv, (*election)->keys(), epoch, taskboard::ha::InSyncSet{0, flags["id"], {}},
        absl::Now() + absl::Seconds(2));
    Print(absl::StrCat("fenced_write epoch=", epoch,
                       " code=", absl::StatusCodeToString(written.code())));
  }
  (*election)->Stop();
  Print("stopped");
  return 0;
}
