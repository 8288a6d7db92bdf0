#include "tools/cli/ha_failover_command.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "grpcpp/client_context.h"
#include "scheduler/ha/replication.grpc.pb.h"
#include "tools/cli/ha_status_command.h"
#include "tools/cli/scheduler_client.h"

namespace taskboard::cli {
namespace {

// A replica that does not answer within this is taken as down: a handover
// goes only to a follower that answers.
constexpr absl::Duration kFailoverAskTimeout = absl::Seconds(2);
// The leader may wait up to 5 s (or 3 sync timeouts) for the target.
constexpr absl::Duration kHandoverTimeout = absl::Seconds(30);
constexpr absl::Duration kLeaderPoll = absl::Milliseconds(20);

bool AnswersAsLeader(const ReplicaAnswer& answer) {
  return answer.status.has_value() && answer.status->role() == "leader";
}

// The index of the answer from `replica_id`; nullopt when none came.
std::optional<size_t> FindReplica(const std::vector<ReplicaAnswer>& answers,
                                  const std::string& replica_id) {
  for (size_t i = 0; i < answers.size(); ++i) {
    if (answers[i].status.has_value() && answers[i].status->replica_id() == replica_id) return i;
  }
  return std::nullopt;
}

std::string Unreachable(const std::vector<ReplicaAnswer>& answers) {
  std::vector<std::string> lines;
  for (const ReplicaAnswer& answer : answers) {
    if (!answer.status.has_value())
      lines.push_back(absl::StrCat(answer.address, ": ", answer.error));
  }
  return lines.empty() ? std::string()
                       : absl::StrCat(" (no answer from ", absl::StrJoin(lines, "; "), ")");
}

size_t Answered(const std::vector<ReplicaAnswer>& answers) {
  return static_cast<size_t>(std::count_if(
      answers.begin(), answers.end(), [](const ReplicaAnswer& a) { return a.status.has_value(); }));
}

// Waits until the replica behind channel `index` answers as the leader of a
// term after `after_epoch`; its status then.
std::optional<ha::v1::ReplicaStatus> WaitForLeader(SchedulerClient& client, size_t index,
                                                   int64_t after_epoch, absl::Duration wait) {
  const absl::Time deadline = absl::Now() + wait;
  while (absl::Now() < deadline) {
    std::shared_ptr<grpc::Channel> channel = client.channels().At(index, nullptr);
    std::unique_ptr<grpc::ClientContext> context = client.CallContext();
    context->set_deadline(absl::ToChronoTime(absl::Now() + kFailoverAskTimeout));
    ha::v1::ReplicaStatus status;
    if (ha::v1::ReplicaAdmin::NewStub(channel)->GetReplicaStatus(context.get(), {}, &status).ok() &&
        status.role() == "leader" && status.epoch() > after_epoch) {
      return status;
    }
    std::this_thread::sleep_for(absl::ToChronoMilliseconds(kLeaderPoll));
  }
  return std::nullopt;
}

std::string SecondsText(absl::Duration d) {
  return absl::StrFormat("%.2f s", absl::ToDoubleSeconds(d));
}

}  // namespace

int RunSwitchover(const SwitchoverOptions& options, std::ostream& out, std::ostream& err) {
  constexpr char kName[] = "taskboard admin ha switchover: ";
  SchedulerClient client(options.scheduler);
  const std::vector<ReplicaAnswer> answers = AskReplicas(client, kFailoverAskTimeout);
  if (Answered(answers) == 0) {
    err << kName << "no replica answered" << Unreachable(answers)
        << "; name every replica with --scheduler a:7233,b:7233,c:7233 and an admin --token\n";
    return 2;
  }
  std::vector<size_t> leaders;
  for (size_t i = 0; i < answers.size(); ++i) {
    if (AnswersAsLeader(answers[i])) leaders.push_back(i);
  }
  if (leaders.size() != 1) {
    err << kName << leaders.size()
        << " replicas answered as the leader; a switchover needs exactly one (during an election, "
           "wait a few seconds; `taskboard admin ha status` shows the cluster)"
        << Unreachable(answers) << "\n";
    return 1;
  }
  const ha::v1::ReplicaStatus& leader = *answers[leaders.front()].status;
  const auto& in_sync = leader.in_sync();
  auto is_in_sync = [&](const std::string& id) {
    return std::find(in_sync.begin(), in_sync.end(), id) != in_sync.end();
  };
  std::string to = options.to;
  if (to == leader.replica_id()) {
    err << kName << "replica '" << to << "' already leads; name a follower with --to\n";
    return 1;
  }
  if (to.empty()) {
    for (const std::string& id : in_sync) {
      if (FindReplica(answers, id).has_value()) {
        to = id;
        break;
      }
    }
    if (to.empty()) {
      err << kName << "no in-sync follower answered (in sync: "
          << (in_sync.empty() ? std::string("none") : absl::StrJoin(in_sync, ","))
          << "); handing over to another would lose acknowledged writes. Wait until "
             "`taskboard admin ha status` shows a follower IN-SYNC yes"
          << Unreachable(answers) << "\n";
      return 1;
    }
  } else if (!FindReplica(answers, to).has_value()) {
    err << kName << "replica '" << to
        << "' did not answer at any address given; a switchover hands over only to a follower "
           "that is up (name its address in --scheduler)"
        << Unreachable(answers) << "\n";
    return 1;
  } else if (!is_in_sync(to)) {
    err << kName << "replica '" << to << "' is not in sync (in sync: "
        << (in_sync.empty() ? std::string("none") : absl::StrJoin(in_sync, ","))
        << "): it may lack acknowledged writes. Hand over to an in-sync follower, or wait until '"
        << to << "' catches up\n";
    return 1;
  }
  const size_t target = *FindReplica(answers, to);

  const absl::Time started = absl::Now();
  std::unique_ptr<grpc::ClientContext> context = client.CallContext();
  context->set_deadline(absl::ToChronoTime(started + kHandoverTimeout));
  ha::v1::SwitchoverRequest request;
  request.set_to(to);
  ha::v1::SwitchoverResponse response;
  const grpc::Status called =
      ha::v1::ReplicaAdmin::NewStub(client.channels().At(leaders.front(), nullptr))
          ->Switchover(context.get(), request, &response);
  if (!called.ok()) {
    err << kName << called.error_message() << "\n";
    return 1;
  }
  std::optional<ha::v1::ReplicaStatus> next =
      WaitForLeader(client, target, response.epoch(), options.wait);
  if (!next.has_value()) {
    err << kName << "'" << response.from() << "' handed over to '" << response.to()
        << "', but it did not answer as the leader within " << absl::FormatDuration(options.wait)
        << "; check its log and `taskboard admin ha status`\n";
    return 1;
  }
  out << "switched over from " << response.from() << " to " << next->replica_id() << " (epoch "
      << response.epoch() << " -> " << next->epoch() << ", index " << response.index() << ") in "
      << SecondsText(absl::Now() - started) << "\n";
  return 0;
}

int RunPromote(const PromoteOptions& options, std::ostream& out, std::ostream& err) {
  constexpr char kName[] = "taskboard admin ha promote: ";
  SchedulerClient client(options.scheduler);
  const std::vector<ReplicaAnswer> answers = AskReplicas(client, kFailoverAskTimeout);
  if (Answered(answers) == 0) {
    err << kName << "no replica answered" << Unreachable(answers)
        << "; name the replica's address with --scheduler and an admin --token\n";
    return 2;
  }
  const std::optional<size_t> replica = FindReplica(answers, options.replica);
  if (!replica.has_value()) {
    err << kName << "replica '" << options.replica
        << "' did not answer at any address given; the replica to promote must be up (name its "
           "address in --scheduler)"
        << Unreachable(answers) << "\n";
    return 1;
  }
  for (const ReplicaAnswer& answer : answers) {
    if (!AnswersAsLeader(answer)) continue;
    if (answer.status->replica_id() == options.replica) {
      err << kName << "replica '" << options.replica << "' already leads\n";
    } else {
      err << kName << "replica '" << answer.status->replica_id() << "' leads (epoch "
          << answer.status->epoch()
          << "); promote is for a cluster that cannot elect a leader. Hand over with "
             "`taskboard admin ha switchover --to "
          << options.replica << "` instead\n";
    }
    return 1;
  }
  const int64_t epoch = answers[*replica].status->epoch();
  const absl::Time started = absl::Now();
  std::unique_ptr<grpc::ClientContext> context = client.CallContext();
  context->set_deadline(absl::ToChronoTime(started + kHandoverTimeout));
  ha::v1::PromoteReplicaRequest request;
  request.set_force(options.force);
  ha::v1::PromoteReplicaResponse response;
  const grpc::Status called = ha::v1::ReplicaAdmin::NewStub(client.channels().At(*replica, nullptr))
                                  ->PromoteReplica(context.get(), request, &response);
  if (!called.ok()) {
    err << kName << called.error_message() << "\n";
    return 1;
  }
  err << "warning: '" << options.replica
      << "' was promoted by force: writes acknowledged after its position "
      << response.applied().epoch() << "/" << response.applied().index()
      << " may be lost (in sync before: "
      << (response.in_sync_before().empty() ? std::string("none")
                                            : absl::StrJoin(response.in_sync_before(), ","))
      << "); the cluster records it (MayHaveLostWrites)\n";
  std::optional<ha::v1::ReplicaStatus> next = WaitForLeader(client, *replica, epoch, options.wait);
  if (!next.has_value()) {
    err << kName << "'" << options.replica << "' did not answer as the leader within "
        << absl::FormatDuration(options.wait) << "; check its log\n";
    return 1;
  }
  out << "promoted " << options.replica << " by force: it leads epoch " << next->epoch()
      << " after " << SecondsText(absl::Now() - started) << "\n";
  return 0;
}

void AddHaFailoverCommands(CLI::App& ha, CommandSet& commands) {
  auto switchover = std::make_shared<SwitchoverOptions>();
  CLI::App* switchover_command =
      ha.add_subcommand("switchover",
                        "Hand the leadership to an in-sync follower without losing a write "
                        "(docs/operations.md#failing-over-by-hand)");
  switchover_command
      ->add_option("--to", switchover->to,
                   "The follower (replica id) to hand over to; default: an in-sync one")
      ->check([](const std::string& value) {
        return value.empty() ? std::string(
                                   "--to needs a replica id (taskboard admin ha status "
                                   "lists them)")
                             : std::string();
      });
  AddSchedulerOption(switchover_command, &switchover->scheduler);
  commands.Add(switchover_command, [switchover](std::ostream& out, std::ostream& err) {
    return RunSwitchover(*switchover, out, err);
  });

  auto promote = std::make_shared<PromoteOptions>();
  CLI::App* promote_command = ha.add_subcommand(
      "promote",
      "Last resort: let a follower that is not in sync lead (may lose acknowledged writes; needs "
      "--force)");
  promote_command->add_option("replica", promote->replica, "The replica id to promote")->required();
  promote_command->add_flag("--force", promote->force,
                            "Promote although writes acknowledged after its position may be lost");
  AddSchedulerOption(promote_command, &promote->scheduler);
  commands.Add(promote_command, [promote](std::ostream& out, std::ostream& err) {
    return RunPromote(*promote, out, err);
  });
}

}  // namespace taskboard::cli
